#ifndef PIPELINE_LIBGIT2_LOADER_H
#define PIPELINE_LIBGIT2_LOADER_H

// git_libgit2_opts is variadic, which Swift cannot call: the one option pipeline sets.
// Strict hash verification re-hashes every object read to check it; git does not, and the trees
// pipeline compares come from the repository itself.
int pipeline_git_set_strict_hash_verification(int enabled);

#endif
