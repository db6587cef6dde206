#!/usr/bin/env python3
"""Negative compile tests for Tile<> constraints.

Each snippet in DIR is compiled with the project's compiler, standard and include dirs
(-fsyntax-only). A snippet whose first line is `// EXPECT-FAIL: <text>` must fail with a
non-zero exit and <text> (a `Fix:` message) in the diagnostics; a snippet whose first line is
`// EXPECT-OK` must compile. Exit 1 if any snippet misbehaves, or if no snippet of either kind
exists (the harness would prove nothing).
"""
import os
import subprocess
import sys


def main(argv):
    sep = argv.index('--')
    opts, cmd = argv[:sep], argv[sep + 1:]
    folder = opts[0]
    incs = [opts[i + 1] for i, a in enumerate(opts) if a == '--inc']
    flags = ['-std=c++20', '-fsyntax-only', '-fno-exceptions', '-fno-rtti'] + ['-I' + i for i in incs]
    failures, oks, fails = 0, 0, 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith('.cpp'):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding='utf-8') as f:
            first = f.readline().strip()
        proc = subprocess.run(cmd + flags + [path], capture_output=True, text=True)
        out = proc.stdout + proc.stderr
        if first.startswith('// EXPECT-OK'):
            oks += 1
            if proc.returncode != 0:
                failures += 1
                print(f'FAIL {name}: expected to compile\n{out}')
            else:
                print(f'PASS {name}: compiles')
        elif first.startswith('// EXPECT-FAIL:'):
            fails += 1
            want = first[len('// EXPECT-FAIL:'):].strip()
            if proc.returncode == 0:
                failures += 1
                print(f'FAIL {name}: compiled, expected an error with "{want}"')
            elif want not in out:
                failures += 1
                print(f'FAIL {name}: error without "{want}"\n{out[:2000]}')
            else:
                print(f'PASS {name}: {want}')
        else:
            failures += 1
            print(f'FAIL {name}: first line must be // EXPECT-OK or // EXPECT-FAIL: <text>')
    if oks == 0 or fails == 0:
        print('FAIL: need at least one positive and one negative snippet')
        return 1
    print(f'{oks + fails - failures} passed, {failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
