// Deliberately heap-pulling image: newlib's printf allocates stdout's buffer with malloc, which
// is why the runner and the examples print through board_print.h. The ELF symbol check must
// FAIL on this program (should_fail), proving it sees what stdio drags into an image.
#include <cstdio>

int main(int argc, char**) {
  std::printf("%d arguments\n", argc);
  return 0;
}
