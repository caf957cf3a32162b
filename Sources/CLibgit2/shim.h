#include <git2.h>
// Content signatures for rename detection (git_hashsig_*), which git2.h leaves out.
#include <git2/sys/hashsig.h>
