// GSSAPI as absent, for linking Debian's libgit2.a into the release.
//
// Debian builds libgit2 with GSSAPI for HTTP "Negotiate" (Kerberos) authentication to remotes,
// and ships no static libgssapi_krb5. pipeline reads local repositories only and never fetches, so
// the release links these instead: each answers GSS_S_UNAVAILABLE, which libgit2 reports as
// "GSSAPI could not be initialised" - what a libgit2 built without GSSAPI offers (no Negotiate
// authentication). scripts/release.sh compiles this only when libgit2.a needs these symbols.
#include <stddef.h>
#include <stdint.h>

typedef uint32_t OM_uint32;
#define GSS_S_UNAVAILABLE (((OM_uint32)16) << 16)

// The declarations' pointer types are all opaque to libgit2 here: void * stands for each.
const void *GSS_C_NT_HOSTBASED_SERVICE = NULL;

static OM_uint32 unavailable(OM_uint32 *minor) {
    if (minor) *minor = 0;
    return GSS_S_UNAVAILABLE;
}

OM_uint32 gss_indicate_mechs(OM_uint32 *minor, void **mechanisms) {
    if (mechanisms) *mechanisms = NULL;
    return unavailable(minor);
}
OM_uint32 gss_release_oid_set(OM_uint32 *minor, void **set) {
    if (set) *set = NULL;
    return unavailable(minor);
}
OM_uint32 gss_import_name(OM_uint32 *minor, const void *buffer, const void *type, void **name) {
    (void)buffer, (void)type;
    if (name) *name = NULL;
    return unavailable(minor);
}
OM_uint32 gss_release_name(OM_uint32 *minor, void **name) {
    if (name) *name = NULL;
    return unavailable(minor);
}
OM_uint32 gss_init_sec_context(OM_uint32 *minor, const void *credential, void **context, const void *target,
                               const void *mechanism, OM_uint32 flags, OM_uint32 lifetime, const void *bindings,
                               const void *input, void **actual_mechanism, void *output, OM_uint32 *returned_flags,
                               OM_uint32 *returned_lifetime) {
    (void)credential, (void)context, (void)target, (void)mechanism, (void)flags, (void)lifetime, (void)bindings;
    (void)input, (void)output;
    if (actual_mechanism) *actual_mechanism = NULL;
    if (returned_flags) *returned_flags = 0;
    if (returned_lifetime) *returned_lifetime = 0;
    return unavailable(minor);
}
OM_uint32 gss_delete_sec_context(OM_uint32 *minor, void **context, void *output) {
    (void)output;
    if (context) *context = NULL;
    return unavailable(minor);
}
// gss_buffer_desc is { size_t length; void *value; }: emptied, so a caller printing it prints nothing.
struct buffer { size_t length; void *value; };
OM_uint32 gss_display_status(OM_uint32 *minor, OM_uint32 status, int type, const void *mechanism,
                             OM_uint32 *context, struct buffer *text) {
    (void)status, (void)type, (void)mechanism;
    if (context) *context = 0;
    if (text) { text->length = 0; text->value = NULL; }
    return unavailable(minor);
}
OM_uint32 gss_release_buffer(OM_uint32 *minor, struct buffer *buffer) {
    if (buffer) { buffer->length = 0; buffer->value = NULL; }
    if (minor) *minor = 0;
    return 0;
}
