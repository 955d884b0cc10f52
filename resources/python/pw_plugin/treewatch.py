"""What a fork-server replay wrote where the next replay would see it.

Every replay child is forked from one server that runs in one copy of the tree, with one
HOME. A fresh run of the node would start from the pristine tree and an empty HOME, so a
replay that changed either would hand its change to the replays after it (a file a test
writes next to itself, a module rewritten with its mtime put back, a cache in HOME). The
server watches both from the end of collection on; after each child it asks whether
anything changed, and if so it stops and the rest of its plan runs in a new server, in a
fresh copy (ReplayServer.cpp). Reading changes nothing here: only writes, creations,
removals, renames and metadata changes count.

inotify (through ctypes) makes the question cost one non-blocking read. Where it cannot
be had (no ctypes, not Linux, the watch limit reached) every entry's identity is compared
instead: inode, size, mtime and ctime -- ctime cannot be set back from user space, so a
file rewritten with its mtime restored is still seen.
"""

import os
import struct

_IN_MODIFY = 0x002
_IN_ATTRIB = 0x004
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_FROM = 0x040
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_EXCL_UNLINK = 0x04000000
_WRITES = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO
           | _IN_CREATE | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF)
_EVENT = struct.Struct("iIII")


def _directories(root):
    yield root
    for parent, dirs, _ in os.walk(root):
        for name in dirs:
            yield os.path.join(parent, name)


def _label(roots, path):
    for name, root in roots:
        if path == root:
            return name or "."
        if path.startswith(root + os.sep):
            return "%s/%s" % (name, os.path.relpath(path, root)) if name else \
                os.path.relpath(path, root)
    return path


class _Inotify:
    def __init__(self, roots):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        self._fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self._dirs = {}
        try:
            for _, root in roots:
                for path in _directories(root):
                    wd = libc.inotify_add_watch(
                        self._fd, os.fsencode(path),
                        _WRITES | _IN_ONLYDIR | _IN_DONT_FOLLOW | _IN_EXCL_UNLINK)
                    if wd < 0:
                        raise OSError(ctypes.get_errno(), "inotify_add_watch " + path)
                    self._dirs[wd] = path
        except BaseException:
            os.close(self._fd)
            raise

    def changed(self):
        """The first path written since the last call, or None."""
        first = None
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return first
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size:offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                if first is not None:
                    continue
                if mask & _IN_Q_OVERFLOW:
                    first = ""
                elif mask & _WRITES:
                    base = self._dirs.get(wd, "")
                    first = os.path.join(base, os.fsdecode(name)) if name else base

    def close(self):
        os.close(self._fd)


class _Snapshot:
    def __init__(self, roots):
        self._roots = roots
        self._last = self._take()

    def _take(self):
        seen = {}
        for _, root in self._roots:
            for path in _directories(root):
                try:
                    names = os.listdir(path)
                except OSError:
                    continue
                for name in [""] + names:
                    full = os.path.join(path, name) if name else path
                    try:
                        st = os.lstat(full)
                    except OSError:
                        continue
                    seen[full] = (st.st_ino, st.st_size, st.st_mode, st.st_mtime_ns,
                                  st.st_ctime_ns)
        return seen

    def changed(self):
        now = self._take()
        last, self._last = self._last, now
        changed = sorted(path for path in set(now) | set(last)
                         if now.get(path) != last.get(path))
        # A directory changes with what was made, removed or renamed in it: name that.
        for path in changed[:1000]:
            if not any(other.startswith(path + os.sep) for other in changed):
                return path
        return changed[0] if changed else None

    def close(self):
        pass


class Watch:
    """Changes under `roots` ([(label, directory)]) since the last changed() call."""

    def __init__(self, roots):
        self._roots = [(label, os.path.realpath(root)) for label, root in roots
                       if root and os.path.isdir(root)]
        try:
            self._impl = _Inotify(self._roots)
            self.kind = "inotify"
        except (ImportError, OSError, AttributeError):
            self._impl = _Snapshot(self._roots)
            self.kind = "stat"

    def changed(self):
        """A label for the first path changed since the last call ("tree/x.py",
        "HOME/.cache"), or None."""
        path = self._impl.changed()
        if path is None:
            return None
        return _label(self._roots, path) if path else "(too many changes to name one)"

    def close(self):
        self._impl.close()
