// SPDX-License-Identifier: MIT
// The floor of a one-shot NVML command: load the library, nvmlInit, nvmlDeviceGetCount, print
// the count. bench/startup.py compares gpumeter's one-shot commands with it.
//   cc -O2 bench/nvml_floor.c -o nvml_floor -ldl && ./nvml_floor [LIBRARY]
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  void* library = dlopen(argc > 1 ? argv[1] : "libnvidia-ml.so.1", RTLD_NOW);
  if (library == NULL) {
    fprintf(stderr, "nvml_floor: %s\n", dlerror());
    return 1;
  }
  int (*init)(void) = (int (*)(void))dlsym(library, "nvmlInit_v2");
  int (*count)(unsigned*) = (int (*)(unsigned*))dlsym(library, "nvmlDeviceGetCount_v2");
  unsigned devices = 0;
  if (init == NULL || count == NULL || init() != 0 || count(&devices) != 0) {
    fprintf(stderr, "nvml_floor: nvmlInit or nvmlDeviceGetCount failed\n");
    return 2;
  }
  printf("%u\n", devices);
  return 0;
}
