// Package fileid names what identifies a file's contents beyond its path,
// size and modification time: its inode change time and its device and
// inode numbers, which a user cannot set back (cp -p, rsync -a, tar x and
// touch -r restore the modification time, not these). The caches of a run
// (compare's listings, digest and delete-file identities, convert's source
// and footer memos) name them, so that such a rewrite is read again.
package fileid
