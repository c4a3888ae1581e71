#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layers test fails on each violation issue 43 took out of lib/, put back.

Usage: check-layers-selftest.py CLANG CHECKER LIBDIR INCLUDEDIR   (exit 77 without clang)

A copy of lib/ gets each violation back, one small function in the file
where it was (or where it would be now), and check-layers.py must fail on
that copy with a line for every one of them, naming the file and what it
did. The untouched lib/ passing is the `layers` test itself. All of them go
into one copy, so the checker reads lib/ once: each line it prints is about
one site, found alone, so each violation would fail the test by itself.
"""
import os
import shutil
import subprocess
import sys
import tempfile

# (file under lib/, code appended to it, what the checker's line about it must say)
VIOLATIONS = [
    # readahead.c's aio read called io_start() past calls.c, the engine's door.
    ('modes/buffered/readahead.c',
     '#include "io_call.h"\n'
     'int layers_selftest_io_start(void) { return io_start(0, 0, 0); }\n',
     'io_start (engine/io_call.h) is not in the interface of engine/'),
    # data.c called the direct mode's write on a buffered handle, past the handle.
    ('api/data.c',
     '#include "direct.h"\n'
     'const void *layers_selftest_direct(void) { return &direct_mode; }\n',
     'direct_mode (modes/direct.h) is not in the interface of modes/'),
    # data.c reached size_append_reserve(), two layers down.
    ('api/data.c',
     '#include "size.h"\n'
     'int layers_selftest_append(struct file_size *s, uint64_t *off)\n'
     '{ return size_append_reserve(s, 1, off, 0, 0); }\n',
     'calls size_append_reserve'),
    # buffered.c wrote the lease's asked hook.
    ('modes/buffered/buffered.c',
     '#include "lease.h"\n'
     'void layers_selftest_asked(struct lease *ls) { ls->asked = 0; }\n',
     'a field of struct lease'),
    # size.c took the lease's lock (22 places).
    ('lease/size.c',
     '#include "lease.h"\n'
     'void layers_selftest_lock(struct lease *ls) { pthread_mutex_lock(&ls->lock); }\n',
     'a field of struct lease'),
    # file.c passed the public striped_close down as a callback.
    ('modes/file.c',
     'const void *layers_selftest_close(void) { return (const void *)striped_close; }\n',
     'the public striped_close'),
    # A call back up between two files of one layer: a cycle.
    ('lease/lock.c',
     'int layers_selftest_cycle(struct lease *ls, uint64_t *e) { return lease_enter(ls, 0, e); }\n',
     'cycle among lease/lease.c, lease/lock.c'),
]


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    clang, checker, libdir, incdir = sys.argv[1:]
    if not shutil.which(clang):
        print(f'layers-selftest: SKIP: no {clang}')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, 'lib')
        shutil.copytree(libdir, lib)
        for path, code, _ in VIOLATIONS:
            with open(os.path.join(lib, path), 'a') as f:
                f.write('\n' + code)
        run = subprocess.run([sys.executable, checker, clang, lib, incdir],
                             capture_output=True, text=True)
    lines = run.stderr.splitlines()
    bad = 0
    if run.returncode != 1:
        print(f'layers-selftest: the checker exited {run.returncode}, not 1', file=sys.stderr)
        bad += 1
    for path, _, says in VIOLATIONS:
        where = 'lease/lease.c' if says.startswith('cycle') else path
        hits = [l for l in lines if l.startswith(where + ':') and says in l]
        print(f'{"ok" if hits else "MISSED"}: {path}: {says}: {hits[0] if hits else "-"}')
        bad += not hits
    if bad:
        print('\n'.join(lines), file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
