/* The one definition of the embedded module (generated/tickretry_module.h declares it for every
 * other file), so it is stored once in flash however many files include the header. */
#define TICKRETRY_MODULE_DEFINITION
#include "generated/tickretry_module.h"
