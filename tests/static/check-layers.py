#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layers of lib/, as lib/layers.conf declares them, hold.

Usage: check-layers.py CLANG LIBDIR INCLUDEDIR [CFLAG...]   (exit 77 without clang)

Each folder of LIBDIR (lib/, or mount/: any tree with a layers.conf) is a
layer with a rank (its layers.conf); CFLAGs are what its C files need
beyond include/ and its own folders (mount/'s: libfuse's headers). Every C file
of lib/ is read by clang (-Xclang -ast-dump=json, nothing is built), the C++
ones by name, and this fails (exit 1, one line a violation) on:
- a call (or a function or variable taken) from one layer to another that
  is not the one directly below, unless layers.conf allows it, with why;
- a call to the layer below past its interface (the headers layers.conf
  names for it: what the layer above may use);
- a write into a struct another part owns (an assignment, ++ or -- of its
  field, or its field's address taken, when the field is not itself one of
  our structs): a struct belongs to the .c of the header that declares it
  (layers.conf's `module` lines name the rest), and value structs (requests,
  arguments, the public header's) are anyone's to fill;
- a public function (include/striped.h) called or taken inside lib/: each
  is a door in, defined in api/ and never used behind it;
- a cycle of calls between files.
It prints the layers, top first, each file with the files it calls.

lib/layers.conf, one line each: `layer NAME RANK`; `interface LAYER
HEADER...` (what the layer above may use of it); `allow FROM TO WHY` (a
call the ranks refuse; FROM and TO are *, a layer, or a file glob under
lib/); `value STRUCT WHY` (a struct its users fill); `module HEADER FILE...`
(who owns the structs HEADER declares, when not its own .c, nor, for a
header without one, its folder's files); `allow-write FROM STRUCT WHY` and
`allow-public FROM WHY` (a write or a public call the rules refuse).
"""
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys

WRITE_OPS = {'=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>='}


class Config:
    """lib/layers.conf: layers, interfaces, allowed calls, value structs, modules."""

    def __init__(self, path):
        self.rank, self.interface, self.allow = {}, {}, []
        self.values, self.modules = {}, []
        self.write_allow, self.public_allow = [], []
        for n, raw in enumerate(open(path), 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            words = line.split()
            kind = words[0]
            if kind == 'layer':
                self.rank[words[1]] = int(words[2])
            elif kind == 'interface':
                self.interface[words[1]] = set(words[2:])
            elif kind == 'allow':
                self.allow.append((words[1], words[2], ' '.join(words[3:]), n))
            elif kind == 'value':
                self.values[words[1]] = ' '.join(words[2:])
            elif kind == 'allow-write':
                self.write_allow.append((words[1], words[2], ' '.join(words[3:])))
            elif kind == 'allow-public':
                self.public_allow.append((words[1], ' '.join(words[2:])))
            elif kind == 'module':
                self.modules.append((words[1], words[2:]))
            else:
                sys.exit(f'{path}:{n}: unknown line: {line}')

    def allowed(self, src, dst):
        """The allow line that lets file src call file dst, if any."""
        for a, b, why, n in self.allow:
            if matches(a, src) and matches(b, dst):
                return why
        return None


def layer_of(path):
    return path.split('/', 1)[0] if '/' in path else ''


def matches(pattern, path):
    """A pattern is *, a layer, or a file (glob) under lib/."""
    return pattern == '*' or pattern == layer_of(path) or fnmatch.fnmatch(path, pattern)


def sources(libdir):
    out = []
    for root, _, files in os.walk(libdir):
        for f in files:
            if f.endswith(('.c', '.cc', '.h')):
                out.append(os.path.relpath(os.path.join(root, f), libdir))
    return sorted(out)


class Ast:
    """What one C file's AST says: definitions, references, writes."""

    def __init__(self):
        self.defined = {}  # function or variable name: file (where its body is)
        self.declared = {}  # function or global name: header (first declaration seen)
        self.records = {}  # RecordDecl id: (name, file)
        self.field_record = {}  # FieldDecl id: (RecordDecl id, field type)
        self.refs = []  # (from file, line, name)
        self.writes = []  # (from file, line, field id)
        self.globals = set()  # ids of file-scope functions and variables


def line_of(text_cache, path, offset):
    text = text_cache.get(path)
    if text is None:
        try:
            text = open(path, 'rb').read()
        except OSError:
            text = b''
        text_cache[path] = text
    return text.count(b'\n', 0, offset) + 1


class Walker:
    """Walks clang's JSON AST in the order clang wrote it: a location names
    its file only when it differs from the one written before, so the file
    of every node is known only by following them all."""

    def __init__(self, libdir, incdir):
        self.libdir = os.path.abspath(libdir)
        self.incdir = os.path.abspath(incdir)
        self.cur = None
        self.texts = {}

    def rel(self, path):
        """lib/-relative path, 'PUBLIC' for include/, None for the rest."""
        if path is None:
            return None
        p = os.path.abspath(path)
        if p.startswith(self.libdir + os.sep):
            return os.path.relpath(p, self.libdir)
        if p.startswith(self.incdir + os.sep):
            return 'PUBLIC'
        return None

    def track(self, loc):
        """Follow one location (loc or range) as clang wrote it; the expansion's file and offset."""
        if not isinstance(loc, dict):
            return None
        if 'spellingLoc' in loc or 'expansionLoc' in loc:
            self.track(loc.get('spellingLoc'))
            return self.track(loc.get('expansionLoc'))
        if 'begin' in loc or 'end' in loc:
            first = self.track(loc.get('begin'))
            self.track(loc.get('end'))
            return first
        if 'file' in loc:
            self.cur = loc['file']
        if 'offset' not in loc:
            return None
        return (self.cur, loc['offset'])

    def walk(self, root, ast):
        # (node, function file, parent write context)
        stack = [(root, None, None)]
        while stack:
            node, fn_file, ctx = stack.pop()
            if not isinstance(node, dict):
                continue
            where = self.track(node.get('loc'))
            rng = self.track(node.get('range'))
            if where is None:
                where = rng
            kind = node.get('kind')
            here = self.rel(where[0]) if where else None
            if kind == 'FunctionDecl':
                self.function(node, here, ast)
                fn_file = here
            elif kind == 'VarDecl' and fn_file is None:
                self.variable(node, here, ast)
            elif kind == 'RecordDecl':
                ast.records[node['id']] = (node.get('name', ''), here)
                for child in node.get('inner', []):
                    if child.get('kind') == 'FieldDecl':
                        ast.field_record[child['id']] = (
                            node['id'], child.get('type', {}).get('desugaredQualType')
                            or child.get('type', {}).get('qualType', ''))
            elif kind == 'DeclRefExpr' and fn_file:
                ref = node.get('referencedDecl', {})
                if ref.get('kind') in ('FunctionDecl', 'VarDecl') and ref.get('id') in ast.globals:
                    ast.refs.append((fn_file, self.line(where), ref.get('name')))
            elif kind == 'MemberExpr' and fn_file and ctx is not None:
                ast.writes.append((fn_file, self.line(where), node.get('referencedMemberDecl'),
                                   ctx))
                continue  # its base is read, not written
            children = node.get('inner', [])
            for i in range(len(children) - 1, -1, -1):
                stack.append((children[i], fn_file, self.child_ctx(node, i, ctx)))

    @staticmethod
    def child_ctx(node, i, ctx):
        """Whether child i of node is written: '=' (assigned, incremented) or '&' (address)."""
        kind = node.get('kind')
        op = node.get('opcode')
        if kind in ('BinaryOperator', 'CompoundAssignOperator') and op in WRITE_OPS and i == 0:
            return '='
        if kind == 'UnaryOperator' and op in ('++', '--'):
            return '='
        if kind == 'UnaryOperator' and op == '&':
            return '&'
        if kind in ('ParenExpr',):
            return ctx
        if kind == 'ArraySubscriptExpr' and i == 0 and ctx:
            return '='
        if kind == 'ImplicitCastExpr' and ctx and node.get('castKind') == 'ArrayToPointerDecay':
            return ctx
        if kind == 'UnaryOperator' and op == '*' and ctx:
            return '='
        if kind == 'ImplicitCastExpr' and ctx == '=' and node.get('castKind') == 'LValueToRValue':
            return '='
        return None

    def line(self, where):
        if not where or not where[0]:
            return 0
        return line_of(self.texts, where[0], where[1])

    def function(self, node, here, ast):
        name = node.get('name')
        if node.get('storageClass') != 'static' or (here and here.endswith('.h')):
            ast.globals.add(node['id'])
        if here is None:
            return
        body = any(c.get('kind') == 'CompoundStmt' for c in node.get('inner', []))
        if body:
            if node.get('storageClass') != 'static' or here.endswith('.h'):
                ast.defined.setdefault(name, here)
        elif node.get('storageClass') != 'static':
            ast.declared.setdefault(name, here)

    def variable(self, node, here, ast):
        ast.globals.add(node['id'])
        if here is None:
            return
        if node.get('storageClass') == 'extern' or 'init' not in node:
            ast.declared.setdefault(node.get('name'), here)
        if node.get('storageClass') != 'static' and node.get('storageClass') != 'extern':
            ast.defined.setdefault(node.get('name'), here)


def read_ast(clang, libdir, incdir, rel, flags):
    out = subprocess.run([clang, '-Xclang', '-ast-dump=json', '-fsyntax-only'] + flags +
                         [os.path.join(libdir, rel)], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f'clang failed on {rel}:\n{out.stderr}')
    ast = Ast()
    Walker(libdir, incdir).walk(json.loads(out.stdout), ast)
    return rel, ast


CXX_DEF = re.compile(r'^extern "C" [^(;]*?\b(\w+)\s*\(', re.M)
IDENT = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def cxx_file(libdir, rel):
    """A C++ file's definitions and calls, by name (it only calls librados and a few of ours)."""
    text = open(os.path.join(libdir, rel)).read()
    text = re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    defined = {m.group(1) for m in CXX_DEF.finditer(text)}
    refs = [(rel, text.count('\n', 0, m.start()) + 1, m.group(1)) for m in IDENT.finditer(text)]
    return defined, refs


class Check:
    def __init__(self, cfg, libdir, asts, cxx):
        self.cfg, self.libdir = cfg, libdir
        self.problems = []
        self.defined, self.declared = {}, {}
        self.structs = set()  # names of the structs declared in lib/ and include/
        self.writes = []  # (file, line, struct name, its file, field type, how)
        for ast in asts.values():
            for k, v in ast.defined.items():
                self.defined.setdefault(k, v)
            for k, v in ast.declared.items():
                self.declared.setdefault(k, v)
            self.structs |= {n for n, f in ast.records.values() if f and n}
            # Ids are addresses in one clang process: resolved within its own AST.
            for src, line, field, how in ast.writes:
                rid, ftype = ast.field_record.get(field, (None, None))
                name, decl = ast.records.get(rid, ('', None))
                self.writes.append((src, line, name, decl, ftype, how))
        self.refs = [r for ast in asts.values() for r in ast.refs]
        for rel, (defined, refs) in cxx.items():
            for name in defined:
                self.defined.setdefault(name, rel)
            self.refs += [r for r in refs if r[2] in self.defined or r[2] in self.declared]
        self.edges = {}

    def fail(self, where, line, msg):
        self.problems.append(f'{where}:{line}: {msg}')

    def layer_ok(self, src, dst, name):
        la, lb = layer_of(src), layer_of(dst)
        ra, rb = self.cfg.rank.get(la), self.cfg.rank.get(lb)
        if ra is None or rb is None:
            return f'{src if ra is None else dst} is in no layer of layers.conf'
        if la == lb:
            return None
        if rb == ra - 1:
            face = self.cfg.interface.get(lb)
            decl = self.declared.get(name) or self.defined.get(name)
            if face is not None and os.path.basename(decl or '') not in face:
                if self.cfg.allowed(src, dst):
                    return None
                return (f'{name} ({decl}) is not in the interface of {lb}/ '
                        f'({", ".join(sorted(face))})')
            return None
        if ra == 0 and rb == 0:
            return None
        if self.cfg.allowed(src, dst):
            return None
        what = 'up' if rb >= ra else 'past ' + ', '.join(
            sorted(l for l, r in self.cfg.rank.items() if rb < r < ra))
        return f'calls {name} ({dst}): {la}/ (rank {ra}) to {lb}/ (rank {rb}), {what}'

    def calls(self):
        for src, line, name in self.refs:
            if self.declared.get(name) == 'PUBLIC' or self.defined.get(name) == 'PUBLIC':
                continue
            dst = self.defined.get(name)
            if dst is None or dst == src:
                continue
            self.edges.setdefault(src, {}).setdefault(dst, set()).add(name)
            why = self.layer_ok(src, dst, name)
            if why:
                self.fail(src, line, why)

    def public(self):
        for name in sorted(n for n, d in self.declared.items() if d == 'PUBLIC'):
            where = self.defined.get(name)
            if where and where != 'PUBLIC' and layer_of(where) != 'api' and not any(
                    matches(a, where) for a, _ in self.cfg.public_allow):
                self.fail(where, 0, f'defines the public {name} outside api/')
        for src, line, name in self.refs:
            if self.declared.get(name) == 'PUBLIC' and name.startswith('striped_'):
                if any(matches(a, src) for a, _ in self.cfg.public_allow):
                    continue
                self.fail(src, line, f'calls the public {name}: call what it calls instead')

    def owners(self, decl_file):
        """Who may write the structs a file declares: its own .c, else its folder's."""
        for header, files in self.cfg.modules:
            if decl_file == header:
                return files
        if decl_file.endswith('.c') or decl_file.endswith('.cc'):
            return [decl_file]
        own = decl_file[:-2] + '.c'
        if os.path.exists(os.path.join(self.libdir, own)):
            return [own]
        return [os.path.join(os.path.dirname(decl_file), '*.c')]

    def ours(self, type_name):
        m = re.match(r'^(?:const )?struct (\w+)$', type_name or '')
        return bool(m) and m.group(1) in self.structs

    def struct_writes(self):
        for src, line, name, decl, ftype, how in self.writes:
            if decl is None or decl == 'PUBLIC' or name in self.cfg.values:
                continue
            if how == '&' and self.ours(ftype):
                continue  # an embedded part, used through its own functions
            owners = self.owners(decl)
            if src == decl or any(fnmatch.fnmatch(src, o) for o in owners):
                continue
            if any(matches(a, src) and b == name for a, b, _ in self.cfg.write_allow):
                continue
            label = f'struct {name}' if name else f'the struct at {decl}'
            verb = 'takes the address of' if how == '&' else 'writes'
            self.fail(src, line, f'{verb} a field of {label}, which {", ".join(owners)} owns')

    def cycles(self):
        index, low, stack, on, counter = {}, {}, [], set(), [0]
        nodes = sorted(set(self.edges) | {d for e in self.edges.values() for d in e})

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in sorted(self.edges.get(v, {})):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    self.fail(sorted(comp)[0], 0, 'cycle among ' + ', '.join(sorted(comp)))

        sys.setrecursionlimit(10000)
        for v in nodes:
            if v not in index:
                visit(v)

    def print_layers(self, files):
        by_rank = sorted(self.cfg.rank.items(), key=lambda kv: (-kv[1], kv[0]))
        for layer, rank in by_rank:
            print(f'{layer}/ (rank {rank}):')
            for f in files:
                if layer_of(f) == layer and not f.endswith('.h'):
                    calls = ', '.join(sorted(self.edges.get(f, {}))) or '-'
                    print(f'  {f} -> {calls}')


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    clang, libdir, incdir = sys.argv[1:4]
    if not shutil.which(clang):
        print(f'layers: SKIP: no {clang} to read lib/ with')
        return 77
    cfg = Config(os.path.join(libdir, 'layers.conf'))
    files = sources(libdir)
    folders = sorted({os.path.dirname(f) for f in files if os.path.dirname(f)})
    flags = ['-std=gnu11', '-D_GNU_SOURCE', '-I' + incdir]
    flags += ['-I' + os.path.join(libdir, d) for d in folders if '/' not in d]
    flags += sys.argv[4:]
    c_files = [f for f in files if f.endswith('.c')]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        asts = dict(pool.map(lambda f: read_ast(clang, libdir, incdir, f, flags), c_files))
    cxx = {f: cxx_file(libdir, f) for f in files if f.endswith('.cc')}
    chk = Check(cfg, libdir, asts, cxx)
    for f in files:
        if layer_of(f) not in cfg.rank:
            chk.fail(f, 0, f'{layer_of(f) or "lib/"} is no layer of layers.conf')
    chk.calls()
    chk.public()
    chk.struct_writes()
    chk.cycles()
    chk.print_layers([f for f in files if not f.endswith('.h')])
    for p in sorted(set(chk.problems)):
        print(p, file=sys.stderr)
    return 1 if chk.problems else 0


if __name__ == '__main__':
    sys.exit(main())
