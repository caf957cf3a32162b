#include "pipeline_shims.h"

int pipeline_git_opts_set_int(int option, int value) {
    return git_libgit2_opts(option, value);
}
