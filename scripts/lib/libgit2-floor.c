// The libgit2 floor of `pipeline changes`, for scripts/bench-changes.sh: what libgit2 alone costs
// to do the comparison pipeline does (git_libgit2_init, strict hash verification off, open, and the
// same walk of HEAD^1's and HEAD's trees: equal ids skipped, only differing subtrees opened), in C,
// with no classification and no Swift. Prints the number of changed paths.
#include <git2.h>
#include <stdio.h>

static git_repository *repo;
static long changes;

static int kind(const git_tree_entry *entry, const char *name, size_t index) {
    if (name[index]) return (unsigned char)name[index];
    return git_tree_entry_filemode(entry) == GIT_FILEMODE_TREE ? '/' : 0;
}

// git's order of tree entries: by name, a folder compared as if its name ended in '/'.
static int order(const git_tree_entry *a, const git_tree_entry *b) {
    const char *x = git_tree_entry_name(a), *y = git_tree_entry_name(b);
    size_t i = 0;
    while (x[i] && y[i] && x[i] == y[i]) i++;
    return kind(a, x, i) - kind(b, y, i);
}

static git_tree *subtree(const git_tree_entry *entry) {
    git_tree *tree = NULL;
    if (entry && git_tree_lookup(&tree, repo, git_tree_entry_id(entry)) < 0) tree = NULL;
    return tree;
}

static void walk(git_tree *old, git_tree *new);

static void one_sided(const git_tree_entry *entry, int base) {
    if (git_tree_entry_filemode(entry) != GIT_FILEMODE_TREE) {
        changes++;
        return;
    }
    git_tree *tree = subtree(entry);
    walk(base ? tree : NULL, base ? NULL : tree);
    git_tree_free(tree);
}

static void walk(git_tree *old, git_tree *new) {
    size_t oc = old ? git_tree_entrycount(old) : 0, nc = new ? git_tree_entrycount(new) : 0, i = 0, j = 0;
    while (i < oc || j < nc) {
        const git_tree_entry *a = i < oc ? git_tree_entry_byindex(old, i) : NULL;
        const git_tree_entry *b = j < nc ? git_tree_entry_byindex(new, j) : NULL;
        int c = a && b ? order(a, b) : (a ? -1 : 1);
        if (c < 0) {
            one_sided(a, 1), i++;
        } else if (c > 0) {
            one_sided(b, 0), j++;
        } else {
            if (!git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b))
                || git_tree_entry_filemode(a) != git_tree_entry_filemode(b)) {
                if (git_tree_entry_filemode(a) == GIT_FILEMODE_TREE) {
                    git_tree *x = subtree(a), *y = subtree(b);
                    walk(x, y);
                    git_tree_free(x);
                    git_tree_free(y);
                } else {
                    changes++;
                }
            }
            i++, j++;
        }
    }
}

int main(void) {
    git_object *head, *parent;
    git_tree *head_tree, *parent_tree;
    if (git_libgit2_init() < 0 || git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0) < 0
        || git_repository_open_ext(&repo, ".", 0, NULL) < 0 || git_revparse_single(&head, repo, "HEAD") < 0
        || git_revparse_single(&parent, repo, "HEAD^1") < 0
        || git_commit_tree(&head_tree, (git_commit *)head) < 0
        || git_commit_tree(&parent_tree, (git_commit *)parent) < 0) {
        fprintf(stderr, "libgit2-floor: %s\n", git_error_last() ? git_error_last()->message : "failed");
        return 1;
    }
    walk(parent_tree, head_tree);
    git_tree_free(head_tree);
    git_tree_free(parent_tree);
    git_object_free(head);
    git_object_free(parent);
    git_repository_free(repo);
    git_libgit2_shutdown();
    printf("%ld\n", changes);
    return 0;
}
