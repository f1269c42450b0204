# SPDX-License-Identifier: BSD-3-Clause
"""e2e "plugins_config": plugins configured as their own READMEs tell their users.
- Score-P plugins named *_plugin (perf_plugin.c, fileparser_plugin.c, written here in the
  style of the published ones): SCOREP_METRIC_PLUGINS=perf_plugin,fileparser_plugin with
  SCOREP_METRIC_PERF_PLUGIN and SCOREP_METRIC_FILEPARSER_PLUGIN: both record, the file's
  number exactly at every event, page faults growing by at least the pages touched;
- a plugin named with no metric requested: one line naming the variable, the run goes on;
- a plugin named without its _plugin (fileparser) whose users set
  SCOREP_METRIC_FILEPARSER_PLUGIN: read, and said;
- VampirTrace: x_plugin_counter finds libx_plugin.so (no libx.so), and says so;
- empty plugin lists (VT_PLUGIN_CNTR_METRICS=, SCOREP_METRIC_PLUGINS=) are no plugins: a
  clean run and a trace;
- a program that exits four calls deep: the Leaves vt writes itself carry a value of the
  strictly synchronous counter too (the thread's last), as OTF2 readers expect."""

import os

import vtmetrics
import vtplugins
import vttest

STEPS, PAGES = 5, 64


def file_values():
    """The file's number at each event: Enter main, Enter/Leave step i, Leave main."""
    seq = [0]
    for i in range(1, STEPS + 1):
        seq += [10 * i, 10 * i]
    return seq + [10 * STEPS]


def body(t):
    plugdir = t.newdir('plugins')
    here = os.path.dirname(os.path.abspath(__file__))
    specs = [('perf_plugin', 'perf_plugin.c', ()),
             ('fileparser_plugin', 'fileparser_plugin.c', ('FP_ENTRY=fileparser_plugin',)),
             ('fileparser', 'fileparser_plugin.c', ('FP_ENTRY=fileparser',)),
             ('x_plugin', 'x_plugin.c', ())]
    t.parallel(lambda s: vtplugins.build_plugin(t, plugdir, s[0], os.path.join(here, s[1]),
                                                s[2]), specs)
    exe = t.compile('cfgprog', ['cfgprog.c'], opt='-O1')
    lib_env = {'LD_LIBRARY_PATH': plugdir + (':' + os.environ['LD_LIBRARY_PATH']
                                              if os.environ.get('LD_LIBRARY_PATH') else '')}

    def run(env, label):
        data = os.path.join(t.newdir(label + '-data'), 'value.txt')
        with open(data, 'w') as f:
            f.write('0\n')
        env = dict(lib_env, **{k: v.replace('{file}', data) for k, v in env.items()})
        return t.run(exe, args=[data], env=env, label=label), data

    what = 'Score-P plugins as their READMEs say'
    r, data = run({'SCOREP_METRIC_PLUGINS': 'perf_plugin,fileparser_plugin',
                   'SCOREP_METRIC_PERF_PLUGIN': 'page-faults,task-clock',
                   'SCOREP_METRIC_FILEPARSER_PLUGIN': '{file}'}, 'scorep')
    t.eq((r.status, r.stdout), (0, 'done\n'), '%s: the program runs' % what)
    t.clean_run(r, what)
    mv = vtmetrics.read_metrics(t.trace(r, what).path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(mv.path), what)
    t.eq(sorted(m.name for m in mv.members.values()), sorted(['page-faults', 'task-clock',
                                                               data]),
         '%s: every requested metric is defined' % what)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    t.eq([v.get(data) for v in seq], file_values(), '%s: the file\'s number at every event'
         % what)
    faults = [v.get('page-faults', 0) for v in seq]
    t.eq([i for i in range(1, len(faults)) if faults[i] < faults[i - 1]], [],
         '%s: page faults never decrease' % what)
    t.check(faults[-1] - faults[0] >= STEPS * PAGES,
            '%s: page faults grew by at least the %d pages touched' % (what, STEPS * PAGES),
            'grew by %d' % (faults[-1] - faults[0]))

    what = 'a plugin with no metric requested'
    r, _ = run({'SCOREP_METRIC_PLUGINS': 'perf_plugin'}, 'nometric')
    t.eq(r.errors, ['error: SCOREP_METRIC_PLUGINS names perf_plugin, but '
                    'SCOREP_METRIC_PERF_PLUGIN is not set: no metric of it is requested (e.g. '
                    'SCOREP_METRIC_PERF_PLUGIN=metric1,metric2); the plugin is not loaded'],
         '%s: one line naming the variable' % what)
    t.eq((r.status, r.stdout), (0, 'done\n'), '%s: the run goes on' % what)
    t.trace(r, what)

    what = 'a README that adds _PLUGIN'
    r, data = run({'SCOREP_METRIC_PLUGINS': 'fileparser',
                   'SCOREP_METRIC_FILEPARSER_PLUGIN': '{file}'}, 'alt')
    t.clean_run(r, what)
    t.eq([m for m in r.messages if 'SCOREP_METRIC_FILEPARSER_PLUGIN' in m],
         ['SCOREP_METRIC_PLUGINS names fileparser: its metrics are read from '
          'SCOREP_METRIC_FILEPARSER_PLUGIN, which its documentation may use (Score-P itself '
          'reads SCOREP_METRIC_<NAME>)'], '%s: said in one line' % what)
    mv = vtmetrics.read_metrics(t.trace(r, what).path)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    t.eq([v.get(data) for v in seq], file_values(), '%s: recorded' % what)

    what = 'a VampirTrace library with an _ in its name'
    r, _ = run({'VT_PLUGIN_CNTR_PATH': plugdir, 'VT_PLUGIN_CNTR_METRICS': 'x_plugin_counter'},
               'vtlib')
    t.clean_run(r, what)
    t.eq([m for m in r.messages if 'x_plugin' in m],
         ["VT_PLUGIN_CNTR_METRICS entry 'x_plugin_counter': counter 'counter' of "
          "libx_plugin.so"], '%s: vt says which library it used' % what)
    mv = vtmetrics.read_metrics(t.trace(r, what).path)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    t.eq([v.get('counter') for v in seq], list(range(1, 2 * STEPS + 3)),
         '%s: its counter at every event' % what)

    what = 'Leaves vt writes itself'
    deep = t.compile('exitdeep', ['exitdeep.c'], opt='-O1')
    r = t.run(deep, env={'VT_PLUGIN_CNTR_PATH': plugdir,
                         'VT_PLUGIN_CNTR_METRICS': 'x_plugin_counter'}, label='exitdeep')
    t.eq((r.status, r.stdout), (0, 'bye\n'), '%s: the program exits' % what)
    mv = vtmetrics.read_metrics(t.trace(r, what).path)
    vtmetrics.cross_check(t, mv, vtmetrics.read_metrics_print(mv.path), what)
    seq = vtmetrics.values_per_event(mv, mv.loc('Master thread').ref)
    # main and inner x4 entered (values 1..5), then five Leaves written at the end with
    # the last value read.
    t.eq([v.get('counter') for v in seq], [1, 2, 3, 4, 5, 5, 5, 5, 5, 5],
         '%s: every Enter and Leave has its value' % what)

    for var in ('VT_PLUGIN_CNTR_METRICS', 'SCOREP_METRIC_PLUGINS'):
        what = 'an empty %s' % var
        r, _ = run({var: ''}, 'empty-' + var.lower())
        t.eq((r.status, r.stdout), (0, 'done\n'), '%s: the program runs' % what)
        t.clean_run(r, what)
        tr = t.trace(r, what)
        t.enter_counts(tr.loc('Master thread'), {'main': 1, 'step': STEPS},
                       '%s: traced, no plugin' % what)


vttest.main('plugins_config', body)
