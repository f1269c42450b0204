# SPDX-License-Identifier: BSD-3-Clause
"""Every public header compiles alone, twice in a row, as C11 and as C++, warning-free and
pedantic, with gcc and clang; and the plugin headers keep a plugin's entry point exported
and unmangled when the plugin is built with -fvisibility=hidden, in C and in C++.

Headers are found the way an installed vt offers them (vt-plugin.pc's -I directories, and
include/ for vt/*.h), here from the source tree.
"""

import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('VT_SOURCE_ROOT') or os.path.abspath(
    os.path.join(os.path.dirname(__file__), '..', '..'))
SDK = os.path.join(SRC, 'plugin-sdk', 'include')
INCLUDES = ['-I' + SDK, '-I' + os.path.join(SDK, 'vampirtrace'),
            '-I' + os.path.join(SRC, 'runtime', 'include')]

# (how a user includes it, its file)
HEADERS = [
    ('vampirtrace/vt_plugin_cntr.h', os.path.join(SDK, 'vampirtrace', 'vt_plugin_cntr.h')),
    ('vt_plugin_cntr.h', os.path.join(SDK, 'vampirtrace', 'vt_plugin_cntr.h')),
    ('scorep/SCOREP_MetricPlugins.h', os.path.join(SDK, 'scorep', 'SCOREP_MetricPlugins.h')),
    ('scorep/SCOREP_MetricTypes.h', os.path.join(SDK, 'scorep', 'SCOREP_MetricTypes.h')),
    ('vt/vt_user.h', os.path.join(SRC, 'runtime', 'include', 'vt', 'vt_user.h')),
    ('vt/vt_inst.h', os.path.join(SRC, 'runtime', 'include', 'vt', 'vt_inst.h')),
    ('vt/vt_sim.h', os.path.join(SDK, 'vt', 'vt_sim.h')),
    ('vt/vt_sim.hpp', os.path.join(SDK, 'vt', 'vt_sim.hpp')),
]
# C++ only (vt-sim's CPF class).
CXX_ONLY = {'vt/vt_sim.hpp'}
STRICT = ['-Wall', '-Wextra', '-Werror', '-pedantic-errors']
LANGS = [('C11', '.c', ['-std=c11']), ('C++11', '.cpp', ['-std=c++11']),
         ('C++17', '.cpp', ['-std=c++17'])]
COMPILERS = {'.c': ['gcc', 'clang'], '.cpp': ['g++', 'clang++']}

passed = failed = 0


def check(cond, what, detail=''):
    global passed, failed
    if cond:
        passed += 1
        print('ok   - %s' % what)
    else:
        failed += 1
        print('FAIL - %s%s' % (what, (': ' + detail) if detail else ''))
    sys.stdout.flush()
    return cond


def compile_(cc, args, cwd):
    p = subprocess.run([cc] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode, p.stdout


def exported(lib):
    p = subprocess.run(['nm', '-D', '--defined-only', lib], stdout=subprocess.PIPE,
                       universal_newlines=True)
    return {line.split()[-1] for line in p.stdout.splitlines() if line.strip()}


# A plugin of each interface, built with -fvisibility=hidden: only the entry points remain.
PLUGIN = r'''
#include <vt_plugin_cntr.h>
#include <scorep/SCOREP_MetricPlugins.h>
#include <string.h>
static int helper_symbol_must_stay_hidden;
vt_plugin_cntr_info get_info(void)
{
	vt_plugin_cntr_info info;
	memset(&info, 0, sizeof(info));
	info.vt_plugin_cntr_version = VT_PLUGIN_CNTR_VERSION + helper_symbol_must_stay_hidden;
	return info;
}
int visible_only_by_default(void);
int visible_only_by_default(void) { return 1; }
SCOREP_METRIC_PLUGIN_ENTRY(hidden_test)
{
	SCOREP_Metric_Plugin_Info info;
	memset(&info, 0, sizeof(info));
	info.plugin_version = SCOREP_METRIC_PLUGIN_VERSION;
	return info;
}
'''


def main():
    work = tempfile.mkdtemp(prefix='vt-headers-')
    try:
        for spelled, path in HEADERS:
            check(os.path.isfile(path), '%s exists' % spelled, path)
            for lang, ext, std in LANGS:
                if ext == '.c' and spelled in CXX_ONLY:
                    continue
                src = os.path.join(work, 'alone' + ext)
                with open(src, 'w') as f:
                    # Twice: the include guard must hold.
                    f.write('#include <%s>\n#include <%s>\nint main(void) { return 0; }\n'
                            % (spelled, spelled))
                for cc in COMPILERS[ext]:
                    if not shutil.which(cc):
                        print('note: %s not installed' % cc)
                        continue
                    rc, out = compile_(cc, std + STRICT + INCLUDES + ['-fsyntax-only', src],
                                       work)
                    check(rc == 0 and not out.strip(),
                          '%s compiles alone as %s with %s, twice, warning-free'
                          % (spelled, lang, cc), out.strip()[:2000])
        for ext, std in (('.c', '-std=c11'), ('.cpp', '-std=c++11')):
            for cc in COMPILERS[ext]:
                if not shutil.which(cc):
                    continue
                src = os.path.join(work, 'plugin' + ext)
                with open(src, 'w') as f:
                    f.write(PLUGIN)
                lib = os.path.join(work, 'libplugin-%s.so' % cc)
                rc, out = compile_(cc, [std, '-Wall', '-Wextra', '-Werror', '-fPIC', '-shared',
                                        '-fvisibility=hidden'] + INCLUDES + [src, '-o', lib],
                                   work)
                if not check(rc == 0, 'a plugin builds with %s -fvisibility=hidden' % cc,
                             out.strip()[:2000]):
                    continue
                syms = exported(lib)
                check('get_info' in syms and 'SCOREP_MetricPlugin_hidden_test_get_info' in syms,
                      '%s -fvisibility=hidden: get_info and SCOREP_MetricPlugin_NAME_get_info '
                      'are exported, unmangled' % cc, repr(sorted(syms)))
                check('visible_only_by_default' not in syms,
                      '%s -fvisibility=hidden: other functions stay hidden' % cc,
                      repr(sorted(syms)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


main()
