/* Preloaded into the simulator by sim/run.sh (docs/smpi.md, "Computation"): SMPI 3.32 backs every
 * folded allocation (smpi/auto-shared-malloc-thresh) with one file it makes by
 * mkstemp("/tmp/simgrid-shmalloc-XXXXXX"), a path it does not let a user change. Where /tmp is a
 * disk file system, the kernel writes that file's shared pages back every few seconds and
 * write-protects them again, and the next write through any of the thousands of mappings faults:
 * charged to whichever rank wrote, as computation. This makes the file on /dev/shm (tmpfs, never
 * written back) instead, already unlinked as SMPI would leave it; SMPI's own unlink of its
 * template then finds nothing, which it does not check. Any other mkstemp is left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

int mkstemp(char *template_name) {
  static int (*real_mkstemp)(char *) = NULL;
  static const char kSmpiPrefix[] = "/tmp/simgrid-shmalloc-";
  if (real_mkstemp == NULL) real_mkstemp = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
  if (strncmp(template_name, kSmpiPrefix, sizeof kSmpiPrefix - 1) == 0) {
    char on_tmpfs[] = "/dev/shm/simgrid-shmalloc-XXXXXX";
    const int fd = real_mkstemp(on_tmpfs);
    if (fd >= 0) {
      unlink(on_tmpfs);
      return fd;
    }
  }
  return real_mkstemp(template_name);
}
