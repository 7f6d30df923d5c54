/* What a bare program needs on QEMU's Xtensa sim machine besides picolibc: the C start
 * (bss, then main, then exit) that reset.S jumps to, and stdout/stderr over semihosting.
 * Xtensa semihosting is the simcall instruction: a2 holds the call number, a3 to a5
 * the arguments, and the result comes back in a2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMCALL_EXIT 1
#define SIMCALL_WRITE 4

static int32_t simcall(int32_t call, int32_t a, int32_t b, int32_t c) {
  register int32_t a2 __asm__("a2") = call;
  register int32_t a3 __asm__("a3") = a;
  register int32_t a4 __asm__("a4") = b;
  register int32_t a5 __asm__("a5") = c;
  __asm__ volatile("simcall" : "+r"(a2) : "r"(a3), "r"(a4), "r"(a5) : "memory");
  return a2;
}

/* Characters are gathered into lines, one write call each. */
typedef struct line {
  int fd;
  size_t length;
  char text[128];
} line;

static line out_line = {.fd = 1};
static line err_line = {.fd = 2};

static void flush_line(line *l) {
  if (l->length) simcall(SIMCALL_WRITE, l->fd, (int32_t)(uintptr_t)l->text, (int32_t)l->length);
  l->length = 0;
}

static int put(char c, line *l) {
  l->text[l->length++] = c;
  if (c == '\n' || l->length == sizeof l->text) flush_line(l);
  return (unsigned char)c;
}

static int put_out(char c, FILE *file) {
  (void)file;
  return put(c, &out_line);
}

static int put_err(char c, FILE *file) {
  (void)file;
  return put(c, &err_line);
}

static FILE out_file = FDEV_SETUP_STREAM(put_out, NULL, NULL, _FDEV_SETUP_WRITE);
static FILE err_file = FDEV_SETUP_STREAM(put_err, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = NULL;
FILE *const stdout = &out_file;
FILE *const stderr = &err_file;

/* picolibc's exit ends here: what is left of a line goes out, then QEMU exits with
 * the program's status. */
void _exit(int status) {
  flush_line(&out_line);
  flush_line(&err_line);
  simcall(SIMCALL_EXIT, status, 0, 0);
  for (;;) {
  }
}

/* abort() raises SIGABRT: there is one process, and the signal ends it. */
int getpid(void) { return 1; }

int kill(int pid, int signal) {
  (void)pid;
  _exit(128 + signal);
}

extern char __bss_start[], __bss_end[];
int main(void);

void xtensa_start(void) {
  memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
  exit(main());
}
