#include "CMalloc.h"
#include <malloc.h>

int hl_malloc_arenas(int n) { return mallopt(M_ARENA_MAX, n); }
