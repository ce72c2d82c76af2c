/* fstree.h - whole directory trees: remove one, or lay an image layer over a
 * root file system (OCI whiteouts).  Nothing here follows a symbolic link or
 * crosses a mount point.  Library: returns 0 or -errno, logs nothing.
 */
#ifndef ROTA_COMMON_FSTREE_H
#define ROTA_COMMON_FSTREE_H

/* rm -rf path (a missing path is no error). */
int fstree_remove(const char *path);

/* Move the extracted layer at layer_dir onto rootfs_dir, as OCI image layers
 * apply: a ".wh.NAME" file deletes NAME below, ".wh..wh..opq" empties its
 * directory below first, a directory merges into one already there, anything
 * else replaces what was there.  layer_dir is consumed (left empty). */
int fstree_apply_layer(const char *layer_dir, const char *rootfs_dir);

#endif
