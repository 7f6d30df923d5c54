/* For test/boards/sketch.test.ts: the generated table as it would be with one more route in
 * boards/page/routes.json whose handler the sketch does not have yet. */
#include "generated/page_routes.h"
#define PAGE_ROUTES_EXTRA(X) X("/new", HTTP_POST, handle_not_written_yet, PAGE_GUARD_PASSWORD, PAGE_BODY_FORM)
#undef PAGE_ROUTES
#define PAGE_ROUTES(X) PAGE_ROUTES_EXTRA(X)
