#pragma once

/* Caps glibc's malloc arenas at n for the rest of the process (mallopt M_ARENA_MAX); 1 when it took. DECISIONS.md,
   "Two malloc arenas". */
int hl_malloc_arenas(int n);

/* Bytes malloc has handed out and not had back (mallinfo2: uordblks + hblkhd): what the process holds, apart from what
   RSS keeps in free chunks. */
unsigned long long hl_malloc_in_use(void);

/* Gives the free memory inside malloc's arenas back to the system (malloc_trim(0)); 1 when some was. DECISIONS.md, "Two
   malloc arenas". */
int hl_malloc_trim(void);
