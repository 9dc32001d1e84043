// PAPCOLL_HOT marks the functions that every collective call runs (the driver's steps, the
// argument checks, auto's remembered choice, the call board). GCC emits them into .text.hot, which
// the linker places together, so that a call runs from a few pages of code instead of some thirty
// spread over the library. What a call costs beyond its messages is then mostly the pages it
// touches: each one not in the TLB is a page walk, and under SimGrid SMPI, where every simulated
// rank runs its own copy of the program cold, the walks were most of a balanced all-reduce's
// 25 us before the library's collective at 1024 ranks (docs/smpi.md, "Computation").
#pragma once

#if defined(__GNUC__)
#define PAPCOLL_HOT [[gnu::hot]]
#else
#define PAPCOLL_HOT
#endif
