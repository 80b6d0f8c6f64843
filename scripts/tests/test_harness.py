#!/usr/bin/env python3
"""Self-test of the harness scripts ("make selftest"): no kernel build.

Each case runs the real scripts against small fixtures (scripts/tests/
fixtures/) in a scratch cache whose "kernel tree" is one file, and checks
the exact error and the exit status:
  - a corrupted patch, a series naming a missing file, a topic without
    a series or a directory, two topics that conflict, TOPICS (apply.sh);
  - an RFC that does not apply, and one whose series names a missing
    patch (rfc.sh);
  - stale results of an earlier run (run-kunit.sh, check-results.py);
  - KTAP logs with a crash in the middle, a timeout, an unplanned case, a
    skip with the wrong reason (check-results.py, kunit.py's parser);
  - an interrupt (SIGINT, SIGTERM) of a run;
  - two applies at once on one cache (the lock), and a run whose series
    is not applied yet beside a stage that holds the tree for long;
  - baseline files (kunit/baseline/): one of another package version, a
    malformed one, a truncated one, one left by an interrupted write;
  - the test plan of a cover letter: a section ends at a blank line
    (cover-letter.py), a tree renames a section or has no case of it,
    and a role or a name with parentheses of its own keeps the person
    whole.
KTAP is read with kunit.py's parser from the cached kernel tree
(KUNIT_TOOLS).
"""
import fcntl
import glob
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(HERE, 'fixtures')
SCRIPTS = os.path.join(TOP, 'scripts')


def script(name):
    """The path of a harness script, in whichever part of scripts/ it is."""
    found = glob.glob(os.path.join(SCRIPTS, '*', name))
    assert len(found) == 1, f'{name}: {found}'
    return found[0]
GOOD = ['0001-hello-add-a-first-comment.patch',
        '0002-hello-add-a-second-comment.patch']


def default_signals():
    """Undo SIGINT/SIGQUIT being ignored, as a shell does for a command
    it starts in the background: bash cannot trap a signal that was
    ignored when it started, and the interrupt tests send SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def git(cwd, *args):
    return subprocess.run(
        ['git', '-c', 'user.name=t', '-c', 'user.email=t@localhost', *args],
        cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


class Harness(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='dmatopics-selftest-')
        self.addCleanup(shutil.rmtree, self.tmp)
        self.cache = os.path.join(self.tmp, 'cache')
        src = os.path.join(self.cache, 'linux')
        os.makedirs(src)
        shutil.copy(os.path.join(FIX, 'tree', 'hello.c'), src)
        # The self-test is of the 6.1 tree, whatever tree started it
        # (make selftest, of 7.3 by default; make rebase TREE=6.12)
        tree_env = {k: v for k, v in os.environ.items()
                    if k not in ('TREE', 'DMATOPICS_TREE',
                                 'DMATOPICS_CACHE_ROOT', 'CACHE',
                                 'CCACHE_DIR', 'LINUX_SOURCE_VERSION')}
        tree_env['TREE'] = '6.1'
        ver = subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; source_version'],
            env=tree_env, capture_output=True, text=True).stdout.strip()
        git(src, 'init', '-q', '-b', 'build')
        git(src, 'add', '-A')
        git(src, 'commit', '-q', '-m', f'linux-source-6.1 {ver}')
        git(src, 'tag', '-a', '-m', f'linux-source-6.1 {ver}', 'baseline')
        self.src = src
        self.patches = os.path.join(self.tmp, 'patches')
        self.results = os.path.join(self.tmp, 'results')
        os.makedirs(self.patches)
        self.env = dict(os.environ, CACHE=self.cache, PATCHES=self.patches,
                        RESULTS=self.results,
                        PLAN=os.path.join(FIX, 'plan'),
                        KUNIT_TOOLS=os.environ['KUNIT_TOOLS'])
        # Nothing of the run that started the self-test (make check
        # TOPICS=...) reaches the runs under test, nor its compiler cache;
        # LINUX_SOURCE_VERSION stays when that run is of 6.1, the package
        # version a rebase has installed (the scripts under test would
        # otherwise install the pinned one).
        if os.environ.get('TREE', '7.3') != '6.1':
            self.env.pop('LINUX_SOURCE_VERSION', None)
        for k in ('LOCK_FD', 'TOPICS', 'KUNITCONFIG', 'TIER', 'FILTER',
                  'KUNIT_BUILD_DIR', 'TREE', 'DMATOPICS_TREE',
                  'DMATOPICS_CACHE_ROOT', 'CCACHE_DIR', 'CHECK_TREES',
                  'CHECK_MULTI', 'CHECK_COMMON'):
            self.env.pop(k, None)
        self.env['TREE'] = '6.1'

    def series(self, *names, topics=None, patches=None):
        """kernel-patches/ with one topic "t" whose series is NAMES, or
        the topics of TOPICS ({name: [patch...]}, in order)."""
        patches = patches or self.patches
        topics = topics or {'t': names}
        with open(os.path.join(patches, 'topics'), 'w') as f:
            f.write('# topic files\n')
            f.write(''.join(f'{t} hello.c\n' for t in topics))
        for t, ns in topics.items():
            d = os.path.join(patches, t)
            os.makedirs(d, exist_ok=True)
            for n in ns:
                if os.path.exists(os.path.join(FIX, 'patches', n)):
                    shutil.copy(os.path.join(FIX, 'patches', n), d)
            with open(os.path.join(d, 'series'), 'w') as f:
                f.write(''.join(n + '\n' for n in ns))

    def run_script(self, *args, **kw):
        return subprocess.run([script(args[0]), *args[1:]],
                              env=kw.pop('env', self.env),
                              capture_output=True, text=True,
                              timeout=60, **kw)

    def wait_for(self, path):
        """Waits until the run under test creates PATH (it starts late on
        a loaded machine: make check runs this beside its QEMU boots)."""
        deadline = time.monotonic() + 120
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertTrue(os.path.exists(path), 'the run never started')

    def wait_for_line(self, pipe, text):
        """Reads PIPE until a line holds TEXT; returns what it read.  On a
        loaded machine a process can take seconds to get there."""
        seen = ''
        deadline = time.monotonic() + 120
        while text not in seen:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                self.fail(f'no {text!r} in 120 s; read {seen!r}')
            line = pipe.readline()
            if not line:
                self.fail(f'no {text!r} before the end; read {seen!r}')
            seen += line
        return seen

    def results_of(self, log, status='ran', arch='x86_64'):
        os.makedirs(self.results, exist_ok=True)
        shutil.copy(os.path.join(FIX, log),
                    os.path.join(self.results, f'{arch}.log'))
        with open(os.path.join(self.results, f'{arch}.status'), 'w') as f:
            f.write(status + '\n')

    def check(self, arch='x86_64'):
        return self.run_script('check-results.py', '--arch', arch)

    def head(self):
        return git(self.src, 'rev-parse', 'HEAD')

    # apply.sh

    def test_series_applies(self):
        self.series(*GOOD)
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.src, 'hello.c')) as f:
            self.assertIn('/* second */', f.read())

    def test_corrupted_patch_is_named_and_nothing_is_applied(self):
        self.series(GOOD[0], '0002-corrupt.patch')
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: patch 2 of the series, '
                      't/0002-corrupt.patch,\ndoes not apply', r.stderr)
        self.assertIn('git am: error: patch failed: hello.c:1', r.stderr)
        self.assertIn('Nothing was applied: the build tree '
                      f'{self.src} was not touched.', r.stderr)
        self.assertEqual(self.head(), git(self.src, 'rev-parse',
                                          'baseline^{commit}'))
        self.assertEqual(git(self.src, 'status', '--porcelain'), '')

    def test_series_naming_a_missing_file_is_refused(self):
        self.series(GOOD[0], '0002-missing.patch')
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: topic t: its series lists 0002-missing.patch, '
                      'but kernel-patches/6.1/t/0002-missing.patch does not '
                      'exist', r.stderr)

    # scripts/runs/rfc.sh: the RFCs of kernel-patches/6.1/rfc/

    def rfc(self, name, *patches):
        d = os.path.join(self.patches, 'rfc', name)
        os.makedirs(d)
        for n in patches:
            if os.path.exists(os.path.join(FIX, 'patches', n)):
                shutil.copy(os.path.join(FIX, 'patches', n), d)
        with open(os.path.join(d, 'series'), 'w') as f:
            f.write(''.join(n + '\n' for n in patches))
        with open(os.path.join(d, 'suite'), 'w') as f:
            f.write('hello\n')

    def rfc_row(self, name):
        with open(os.path.join(self.results, 'rfc.tsv')) as f:
            rows = [r for r in f if r.startswith(f'rfc-{name}\t')]
        self.assertEqual(len(rows), 1, rows)
        return rows[0].rstrip('\n').split('\t')

    def test_an_rfc_that_does_not_apply_is_named_and_fails(self):
        self.series(*GOOD)
        self.rfc('r', '0002-corrupt.patch')
        head = self.head()
        r = self.run_script('rfc.sh', 'rfc')
        self.assertEqual(r.returncode, 1)
        row = self.rfc_row('r')
        self.assertEqual(row[1:3], ['x86_64', 'no'])
        self.assertIn('0002-corrupt.patch does not apply to baseline + '
                      'series', row[-1])
        # The build tree is not touched.
        self.assertEqual(self.head(), head)
        self.assertEqual(git(self.src, 'status', '--porcelain'), '')

    def test_an_rfc_e2e_on_an_arch_it_does_not_build_is_named_and_fails(self):
        self.series(*GOOD)
        self.rfc('r', '0002-corrupt.patch')
        d = os.path.join(self.patches, 'rfc', 'r')
        with open(os.path.join(d, 'arches'), 'w') as f:
            f.write('x86_64\n')
        with open(os.path.join(d, 'e2e'), 'w') as f:
            f.write('arch arm64\nargs e2e_uio=1\n')
        head = self.head()
        r = self.run_script('rfc.sh', 'rfc')
        self.assertEqual(r.returncode, 1)
        with open(os.path.join(self.results, 'rfc.tsv')) as f:
            rows = [r for r in f if r.startswith('rfc-r-e2e\t')]
        self.assertEqual(len(rows), 1, rows)
        self.assertIn("arch 'arm64' is not one of its arches", rows[0])
        self.assertEqual(self.head(), head)

    def test_an_rfc_naming_a_missing_patch_is_named_and_fails(self):
        self.series(*GOOD)
        self.rfc('r', '0003-missing.patch')
        r = self.run_script('rfc.sh', 'rfc')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: RFC r: its series lists 0003-missing.patch, '
                      'but kernel-patches/6.1/rfc/r/0003-missing.patch does not '
                      'exist', r.stderr)
        self.assertEqual(self.rfc_row('r')[2], 'no')

    # the topic series

    def test_every_script_the_harness_names_exists(self):
        # The paths the scripts, the Makefile and the CI name (a leftover
        # of a move is otherwise found only by the stage that runs it),
        # and the stages check.sh runs by name
        top = os.path.dirname(SCRIPTS)
        named = set()
        for d, _, files in os.walk(top):
            if any(p in d for p in ('/.git', '/kernel-patches', '__pycache__',
                                    '/fixtures', '/results')):
                continue
            for f in files:
                if not f.endswith(('.sh', '.py', '.c', '.yml', '.md')) \
                        and f != 'Makefile':
                    continue
                with open(os.path.join(d, f), errors='replace') as fh:
                    text = fh.read()
                named |= set(re.findall(
                    r'scripts/(?:trees|runs|results|checks)/[\w.-]+\.(?:sh|py|c)'
                    r'|scripts/common\.sh', text))
        self.assertGreater(len(named), 20)
        missing = sorted(p for p in named
                         if not os.path.exists(os.path.join(top, p)))
        self.assertEqual(missing, [])
        for stage in ('kcsan', 'faults', 'rfc', 'configs'):
            self.assertTrue(os.path.exists(script(f'{stage}.sh')), stage)

    # The tree axis (TREE=6.1|6.12, scripts/common.sh)
    def tree_vars(self, tree=None, extra=None):
        env = dict(self.env, **(extra or {}))
        env.pop('PATCHES')
        if tree is not None:
            env['TREE'] = tree
        return subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; echo "$CACHE|$PATCHES|'
             f'$PACKAGE|$PNAME"; bash -c \'. {SCRIPTS}/common.sh; echo '
             f'"$CACHE"; TREE=6.1 bash -c ". {SCRIPTS}/common.sh; echo '
             f'\\$CACHE"\''],
            env=env, capture_output=True, text=True)

    def test_an_unknown_tree_is_named_and_no_cache_is_made(self):
        r = self.tree_vars('6.2', {'CACHE': os.path.join(self.tmp, 'new')})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("error: unknown TREE '6.2'; the trees are: 6.1 6.12 7.3",
                      r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'new')))
        r = self.run_script('apply.sh', env=dict(self.env, TREE='5.10'))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown TREE '5.10'", r.stderr)

    def test_each_tree_has_its_series_and_its_cache(self):
        top = os.path.dirname(SCRIPTS)
        r = self.tree_vars()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split('\n')[:3], [
            f'{self.cache}|{top}/kernel-patches/6.1|linux-source-6.1|'
            'kernel-patches/6.1', self.cache, self.cache])
        # A script run by a 6.12 script keeps 6.12's cache; one run for
        # 6.1 gets 6.1's
        r = self.tree_vars('6.12')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split('\n')[:3], [
            f'{self.cache}-6.12|{top}/kernel-patches/6.12|linux-source-6.12|'
            'kernel-patches/6.12', f'{self.cache}-6.12', self.cache])

    def test_the_default_tree_is_7_3_and_the_trees_are_data(self):
        top = os.path.dirname(SCRIPTS)
        env = dict(self.env)
        env.pop('PATCHES')
        env.pop('TREE')
        r = subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; echo "$TREE|$CACHE|'
             '$PACKAGE|$APT_SOURCE|$KNOWN_TREES|$(apt_source_suite)"'],
            env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), '|'.join([
            '7.3', f'{self.cache}-7.3', 'linux-source-7.3',
            f'{top}/kernel-patches/7.3/apt-source', '6.1 6.12 7.3',
            'trixie-backports']))
        # The backports come from Debian 12's own suites
        r = subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; echo "[$(apt_source_suite)]"'],
            env=dict(env, TREE='6.12'), capture_output=True, text=True)
        self.assertEqual(r.stdout.strip(), '[]', r.stderr)

    def test_topics_apply_in_the_order_of_the_topics_file(self):
        self.series(topics={'a': [GOOD[0]], 'b': [GOOD[1]]})
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.src, 'hello.c')) as f:
            self.assertIn('/* second */', f.read())

    def test_a_topic_without_a_series_is_named(self):
        self.series(topics={'a': [GOOD[0]], 'b': [GOOD[1]]})
        os.remove(os.path.join(self.patches, 'b', 'series'))
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: topic b: kernel-patches/6.1/b/series is missing',
                      r.stderr)
        self.assertEqual(self.head(), git(self.src, 'rev-parse',
                                          'baseline^{commit}'))

    def test_a_missing_or_empty_topics_file_is_named(self):
        self.series(topics={'a': [GOOD[0]]})
        topics = os.path.join(self.patches, 'topics')
        with open(topics, 'w') as f:
            f.write('# no topic\n')
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: kernel-patches/6.1/topics lists no topic', r.stderr)
        os.remove(topics)
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: kernel-patches/6.1/topics is missing', r.stderr)

    def test_a_topic_without_a_directory_is_named(self):
        self.series(topics={'a': [GOOD[0]]})
        with open(os.path.join(self.patches, 'topics'), 'a') as f:
            f.write('gone hello.c\n')
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: kernel-patches/6.1/topics lists gone, but '
                      'kernel-patches/6.1/gone/ does not exist', r.stderr)

    def test_two_topics_that_conflict_are_named_and_nothing_is_applied(self):
        self.series(topics={'a': [GOOD[0]],
                            'b': ['0001-hello-add-another-comment.patch']})
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: patch 2 of the series, '
                      'b/0001-hello-add-another-comment.patch,\n'
                      'does not apply', r.stderr)
        self.assertIn('Topic b conflicts with a topic applied before it: '
                      'hello.c is also changed by '
                      'a/0001-hello-add-a-first-comment.patch.', r.stderr)
        self.assertEqual(self.head(), git(self.src, 'rev-parse',
                                          'baseline^{commit}'))
        self.assertEqual(git(self.src, 'status', '--porcelain'), '')

    def test_topics_names_one_topic_alone(self):
        self.series(topics={'a': [GOOD[0]],
                            'b': ['0001-hello-add-another-comment.patch']})
        self.env['TOPICS'] = 'b'
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.src, 'hello.c')) as f:
            text = f.read()
        self.assertIn('/* other */', text)
        self.assertNotIn('/* first */', text)
        self.env['TOPICS'] = 'c'
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 1)
        self.assertIn("error: TOPICS names 'c', which kernel-patches/6.1/topics "
                      "does not list (it lists: a b)", r.stderr)

    # stale results

    def test_results_of_an_earlier_run_are_never_counted(self):
        self.results_of('pass.log')
        r = self.check()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertTrue(r.stdout.endswith(
            '2 passed, 0 failed, 1 skipped\n'), r.stdout)

        self.series(GOOD[0], '0002-corrupt.patch')
        r = self.run_script('run-kunit.sh', 'x86_64')
        self.assertEqual(r.returncode, 1)
        self.assertFalse(os.path.exists(
            os.path.join(self.results, 'x86_64.log')))
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: not run: the series does not apply',
                      r.stdout)
        self.assertTrue(r.stdout.endswith(
            '0 passed, 3 failed, 0 skipped\n'), r.stdout)

    # KTAP logs

    def test_crash_in_the_middle_names_the_last_suite(self):
        self.results_of('crash.log')
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: the run crashed; last suite started: '
                      'alpha', r.stdout)
        self.assertIn('error: x86_64: kernel splat at x86_64.log:8: [    '
                      '0.800000] BUG: kernel NULL pointer dereference',
                      r.stdout)
        self.assertIn('error: x86_64: planned beta.skips_on_x86 did not run',
                      r.stdout)

    def test_an_rcu_stall_is_a_splat(self):
        self.results_of('pass.log')
        log = os.path.join(self.results, 'x86_64.log')
        with open(log) as f:
            lines = f.readlines()
        lines.insert(7, '[   70.000000] rcu: INFO: rcu_preempt self-detected '
                        'stall on CPU\n')
        with open(log, 'w') as f:
            f.writelines(lines)
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: kernel splat at x86_64.log:8 (in '
                      'alpha.two_passes): [   70.000000] rcu: INFO: '
                      'rcu_preempt self-detected stall on CPU', r.stdout)

    # kcsan-judge.py (the KCSAN stage)

    def kcsan_run(self, reports, baseline=None):
        """results/x86_64-kcsan.log: pass.log with the KCSAN reports
        REPORTS ("A / B") in it; a build whose lib/series.o defines
        series_fn, the one function of the changed lib/series.c."""
        os.makedirs(self.results, exist_ok=True)
        with open(os.path.join(FIX, 'pass.log')) as f:
            lines = f.readlines()
        for r in reports:
            lines[7:7] = ['[    0.900000] ' + '=' * 66 + '\n',
                          f'[    0.900000] BUG: KCSAN: data-race in {r}\n',
                          '[    0.900000] ' + '=' * 66 + '\n']
        with open(os.path.join(self.results, 'x86_64-kcsan.log'), 'w') as f:
            f.writelines(lines)
        bd = os.path.join(self.tmp, 'build')
        os.makedirs(os.path.join(bd, 'lib'))
        with open(os.path.join(self.tmp, 'series.c'), 'w') as f:
            f.write('void series_fn(void) { }\n')
        subprocess.run(['gcc', '-c', '-o', os.path.join(bd, 'lib', 'series.o'),
                        os.path.join(self.tmp, 'series.c')], check=True)
        diff = os.path.join(self.tmp, 'diff')
        with open(diff, 'w') as f:
            f.write('diff --git a/lib/series.c b/lib/series.c\n'
                    'new file mode 100644\n--- /dev/null\n'
                    '+++ b/lib/series.c\n@@ -0,0 +1 @@\n'
                    '+void series_fn(void) { }\n'
                    'diff --git a/mm/old.c b/mm/old.c\n--- a/mm/old.c\n'
                    '+++ b/mm/old.c\n@@ -10 +10 @@ int changed_fn(int x)\n'
                    '-\treturn x;\n+\treturn x + 1;\n'
                    '@@ -20,0 +21,3 @@ int changed_fn(int x)\n'
                    '+static void added_fn(void)\n+{\n+}\n')
        args = ['kcsan-judge.py', '--run', 'x86_64-kcsan', '--vmlinux',
                os.path.join(bd, 'vmlinux'), '--diff', diff,
                '--plan', 'x86_64']
        if baseline:
            path = os.path.join(self.tmp, 'base.log')
            with open(path, 'w') as f:
                f.write(''.join(f'BUG: KCSAN: data-race in {r}\n'
                                for r in baseline))
            args += ['--baseline', path]
        r = self.run_script(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.results, 'kcsan-reports.tsv')) as f:
            return r.stdout.rstrip('\n').split('\t'), f.read()

    def test_a_race_in_a_function_the_series_changes_fails_the_kcsan_run(self):
        (ok, cases, note), tsv = self.kcsan_run(
            ['series_fn+0x10/0x20 / other_fn+0x4/0x8',
             'other_fn+0x1/0x2 / changed_fn+0x3/0x4',
             'added_fn+0x1/0x2 [mod] / other_fn+0x5/0x6',
             'unchanged_fn+0x1/0x2 / other_fn+0x4/0x8'])
        self.assertEqual((ok, cases), ('no', '2/0/1'))
        self.assertIn('4 KCSAN reports: 3 in code the series changes, 1 '
                      'in untouched code (no baseline boot in this run)',
                      note)
        self.assertIn('series_fn / other_fn (lib/series.c)', note)
        self.assertIn('other_fn / changed_fn (mm/old.c)', note)
        self.assertIn('added_fn / other_fn (mm/old.c)', note)
        self.assertIn('series: lib/series.c', tsv)
        self.assertIn('unchanged_fn / other_fn\tuntouched code\tno '
                      'baseline run', tsv)

    def test_a_race_elsewhere_is_listed_as_pre_existing_with_the_baseline(self):
        (ok, cases, note), tsv = self.kcsan_run(
            ['a_fn+0x1/0x2 / b_fn.isra.0+0x3/0x4', 'c_fn+0x1/0x2'],
            baseline=['b_fn+0x9/0x10 / a_fn+0x7/0x8'])
        self.assertEqual((ok, cases), ('yes', '2/0/1'))
        self.assertIn('2 KCSAN reports: 0 in code the series changes, 1 '
                      'pre-existing (same pair on the baseline), 1 in '
                      'untouched code not on the baseline', note)
        self.assertIn('a_fn / b_fn\tuntouched code\tsame pair on the '
                      'baseline', tsv)
        self.assertIn('c_fn\tuntouched code\tnot on the baseline', tsv)

    def test_a_kcsan_run_with_a_splat_or_a_planned_case_missing_fails(self):
        os.makedirs(self.results, exist_ok=True)
        with open(os.path.join(FIX, 'crash.log')) as f:
            log = f.read()
        with open(os.path.join(self.results, 'x86_64-kcsan.log'), 'w') as f:
            f.write(log)
        diff = os.path.join(self.tmp, 'diff')
        open(diff, 'w').close()
        r = self.run_script('kcsan-judge.py', '--run', 'x86_64-kcsan',
                            '--vmlinux', os.path.join(self.tmp, 'vmlinux'),
                            '--diff', diff, '--no-baseline',
                            '--plan', 'x86_64')
        ok, _, note = r.stdout.rstrip('\n').split('\t')
        self.assertEqual(ok, 'no')
        self.assertIn('beta.skips_on_x86 did not run', note)
        self.assertIn('BUG: kernel NULL pointer dereference', r.stdout)

    # faults-judge.py (the fault stage)

    def faults_run(self, injected=3, before='', end=True, uio=None,
                   beta=False):
        """results/x86_64-faults.log of a boot with e2e_faults=0,5: one
        module, alpha_kunit, whose case fails under failures; with UIO
        (wrong, injected), the UIO workload's line of setting 5; with
        beta, a second module in setting 0, each module's suites
        starting with a KTAP header and ending with totals, as 6.12's
        do."""
        mark = '    # e2e_faults: '
        head = ['[    5.000000] KTAP version 1', '[    5.000000] 1..1']
        log = [before,
               mark + 'setting interval 0',
               mark + 'load alpha_kunit interval 0',
               *(head if beta else []),
               '[    5.000000]     KTAP version 1',
               '[    5.000000]     # Subtest: alpha',
               '[    5.000000]     1..1',
               '[    5.100000]     ok 1 works',
               *(['[    5.100000] # Totals: pass:1 fail:0 skip:0 total:1']
                 if beta else []),
               '[    5.100000] ok 7 alpha',
               mark + 'loaded alpha_kunit interval 0: 0, 0 failures injected',
               *([mark + 'load beta_kunit interval 0', *head,
                  '[    5.200000]     KTAP version 1',
                  '[    5.200000]     # Subtest: beta',
                  '[    5.200000]     1..1',
                  '[    5.200000]     ok 1 works',
                  '[    5.200000] # Totals: pass:1 fail:0 skip:0 total:1',
                  '[    5.200000] ok 8 beta',
                  mark + 'loaded beta_kunit interval 0: 0, 0 failures '
                  'injected'] if beta else []),
               mark + 'odirect child interval 0: 0 of 64 writes and 0 of 64 '
               'reads failed (first: none), 0 wrong',
               mark + 'odirect interval 0: child done, 0 chunks wrong, 0 '
               'failures injected',
               mark + 'setting interval 0: 0 failures injected, 0 chunks '
               'wrong, kmemleak 0',
               '    ok 1 interval_0',
               mark + 'setting interval 5',
               mark + 'load alpha_kunit interval 5',
               '[    6.000000]     KTAP version 1',
               '[    6.000000]     # Subtest: alpha',
               '[    6.000000]     1..1']
        if end:
            log += ['[    6.100000]     not ok 1 works',
                    '[    6.100000] not ok 8 alpha',
                    mark + f'loaded alpha_kunit interval 5: 0, {injected} '
                    'failures injected',
                    mark + 'odirect child interval 5: 3 of 64 writes and 0 '
                    'of 64 reads failed (first: Cannot allocate memory), 0 '
                    'wrong',
                    mark + 'odirect interval 5: child done, 0 chunks '
                    'wrong, 3 failures injected',
                    *([mark + f'uio interval 5: child done, {uio[0]} '
                       f'wrong, {uio[1]} failures injected'] if uio else []),
                    mark + 'setting interval 5: 6 failures injected, 0 '
                    'chunks wrong, kmemleak 0',
                    '    ok 2 interval_5']
        else:
            log += ['[    6.100000] BUG: kernel NULL pointer dereference, '
                    'address: 0000000000000000']
        os.makedirs(self.results, exist_ok=True)
        with open(os.path.join(self.results, 'x86_64-faults.log'), 'w') as f:
            f.write('\n'.join(log) + '\n')
        r = self.run_script('faults-judge.py', 'x86_64', '0,5')
        return r.returncode, [line.split('\t') for line in
                              r.stdout.splitlines()]

    def test_faults_compare_each_setting_with_the_one_without_failures(self):
        rc, rows = self.faults_run()
        self.assertEqual(rc, 0, rows)
        self.assertEqual(rows[0][:7], ['faults-i0', 'x86_64', 'yes', 'yes',
                                       'yes', '-', '1/0/0'])
        self.assertEqual(rows[1][4:7], ['yes', '-', '-'])
        self.assertIn('6 failures injected (alpha 3, odirect 3); cases '
                      '0/1/0: 0 skipped and 1 failed that passed without '
                      'failures (alpha.works)', rows[1][7])
        self.assertTrue(os.path.exists(
            os.path.join(self.results, 'x86_64-faults-i5.junit.xml')))

    def test_options_a_position_does_not_define_are_left_out(self):
        # check-series cuts the kunitconfig to what the tree defines at a
        # position; an undefined option last must not end the script
        src = os.path.join(self.tmp, 'src')
        os.makedirs(src)
        with open(os.path.join(src, 'Kconfig'), 'w') as f:
            f.write('config HERE\n\tbool\n')
        subprocess.run(['git', 'init', '-q', src], check=True)
        subprocess.run(['git', '-C', src, 'add', 'Kconfig'], check=True)
        r = subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; SRC={src}; '
             'defined_options; echo "rc=$?"'],
            input='# a comment\nCONFIG_HERE=y\nCONFIG_NOT_YET=y\n',
            env=self.env, capture_output=True, text=True)
        self.assertEqual(r.stdout, '# a comment\nCONFIG_HERE=y\nrc=0\n',
                         r.stderr)

    def test_modules_that_each_start_their_own_ktap_are_one_run(self):
        # 6.12 starts each module's suites with "KTAP version 1" and a
        # plan, which in one run would read as tests nested in it
        rc, rows = self.faults_run(beta=True)
        self.assertEqual(rc, 0, rows)
        self.assertEqual(rows[0][:7], ['faults-i0', 'x86_64', 'yes', 'yes',
                                       'yes', '-', '2/0/0'])

    def test_the_uio_workload_counts_and_fails_on_a_wrong_result(self):
        rc, rows = self.faults_run(uio=(0, 4))
        self.assertEqual(rc, 0, rows)
        self.assertIn('(alpha 3, odirect 3, uio 4)', rows[1][7])
        rc, rows = self.faults_run(uio=(1, 4))
        self.assertEqual(rc, 1)
        self.assertIn('UIO: 1 wrong results', rows[1][7])
        rc, rows = self.faults_run(uio=(0, 0))
        self.assertEqual(rc, 1)
        self.assertIn('no failure injected into uio', rows[1][7])

    def test_a_setting_that_injected_nothing_into_a_module_fails(self):
        rc, rows = self.faults_run(injected=0)
        self.assertEqual(rc, 1)
        self.assertEqual(rows[1][4], 'no')
        self.assertIn('no failure injected into alpha_kunit', rows[1][7])

    def test_a_kernel_without_fault_injection_is_named(self):
        rc, rows = self.faults_run(
            before='    # e2e_faults: error: no /sys/kernel/debug/failslab '
            'or fail_page_alloc (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, '
            'CONFIG_FAULT_INJECTION_DEBUG_FS)')
        self.assertEqual(rc, 1)
        for row in rows:
            self.assertEqual(row[4], 'no')
            self.assertIn('init: no /sys/kernel/debug/failslab', row[7])

    def test_a_crash_under_failures_is_named(self):
        rc, rows = self.faults_run(end=False)
        self.assertEqual(rc, 1)
        self.assertEqual(rows[1][4], 'no')
        self.assertIn('the boot ended before this setting did', rows[1][7])
        self.assertIn('(loading alpha_kunit): BUG: kernel NULL pointer',
                      rows[1][7])

    def test_timeout_is_reported_as_a_timeout(self):
        self.results_of('timeout.log')
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: timeout: kunit.py stopped QEMU before '
                      'the run ended (--timeout, KUNIT_TIMEOUT=); last suite '
                      'started: alpha', r.stdout)
        self.assertNotIn('crashed', r.stdout)

    def test_unplanned_case_fails(self):
        self.results_of('unplanned.log')
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: alpha.three_is_not_planned ran but is '
                      'not in kunit/plan', r.stdout)

    def test_a_tree_without_a_case_of_the_plan_has_it_as_none(self):
        # kunit/plan-7.3: the case 7.3's series does not have is planned
        # nowhere there, so that a run of it is unplanned; the other rows
        # of kunit/plan-7.3 replace the plan's, and a case only 7.3 has
        # ("none" in the plan) is planned on 7.3 alone
        code = ('import importlib.util, sys\n'
                f'spec = importlib.util.spec_from_file_location("cr", '
                f'"{SCRIPTS}/results/check-results.py")\n'
                'cr = importlib.util.module_from_spec(spec)\n'
                'spec.loader.exec_module(cr)\n'
                'plan = cr.tree_plan()\n'
                'print(("aacraid_post_code", "aac_parse_post_code_handles_'
                'prefixes_and_lengths") in plan)\n'
                'print(plan.get(("dma_required_mask", "dma_get_required_mask_'
                'is_32_bits_behind_ops_without_an_answer"), {}).get("x86_64"))\n')
        env = dict(self.env, TREE='7.3')
        env.pop('PLAN')
        r = subprocess.run(['python3', '-c', code], env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split('\n')[:2], [
            'False', 'x86_64: no DMA ops (CONFIG_ARCH_HAS_DMA_OPS is off)'])
        env['TREE'] = '6.1'
        r = subprocess.run(['python3', '-c', code], env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.stdout.split('\n')[:2], ['True', 'None'], r.stderr)

    def test_cases_of_a_topic_left_out_are_not_expected(self):
        # make check TOPICS=...: the plan rows under the option of a topic
        # series that was left out are not expected; every other row is.
        plan = os.path.join(self.tmp, 'plan')
        with open(os.path.join(FIX, 'plan')) as f, open(plan, 'w') as g:
            g.write(f.read() + '\n# gamma.c (CONFIG_GAMMA_TEST)\n'
                    'gamma.runs x86_64 arm\n')
        self.env['PLAN'] = plan
        self.results_of('pass.log')
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('gamma.runs', r.stdout)
        r = self.run_script('check-results.py', '--arch', 'x86_64',
                            '--absent-options', 'GAMMA_TEST')
        self.assertEqual(r.returncode, 0, r.stdout)
        r = self.run_script('check-results.py', '--arch', 'x86_64',
                            '--absent-options', 'OTHER_TEST')
        self.assertEqual(r.returncode, 1)

    def test_a_stage_that_stopped_early_fails(self):
        # A stage's .tsv without its last "# complete" line: the stage
        # stopped (crash, timeout, die) before judging every run.
        self.results_of('pass.log')
        head = 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n'
        row = 'faults-i0\tx86_64\tyes\tyes\tyes\t-\t3/0/0\tok\n'
        tsv = os.path.join(self.results, 'faults.tsv')
        with open(tsv, 'w') as f:
            f.write(head + row)
        r = self.run_script('check-results.py', '--arch', 'x86_64',
                            '--stage', 'faults')
        self.assertEqual(r.returncode, 1)
        self.assertIn('the fault stage (scripts/runs/faults.sh) stopped before '
                      'it finished', r.stdout)
        with open(tsv, 'a') as f:
            f.write('# complete\n')
        r = self.run_script('check-results.py', '--arch', 'x86_64',
                            '--stage', 'faults')
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_a_stage_split_over_jobs_is_merged_and_judged_once(self):
        # CI's faults-x86_64 and faults-arm64 jobs each write a
        # faults.tsv: the merge judges one file with the rows of both,
        # complete only if both were.
        head = 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n'
        jobs = []
        for arch in ('x86_64', 'arm64'):
            d = os.path.join(self.tmp, f'results-faults-{arch}')
            os.makedirs(d)
            with open(os.path.join(d, 'faults.tsv'), 'w') as f:
                f.write(head + f'faults-i0\t{arch}\tyes\tyes\tyes\t-\t'
                        '3/0/0\tok\n# complete\n')
            jobs.append(d)
        self.results_of('pass.log')
        os.rename(self.results, os.path.join(self.tmp, 'results-x86_64'))
        jobs.append(os.path.join(self.tmp, 'results-x86_64'))
        r = self.run_script('merge-results.sh', *jobs)
        with open(os.path.join(self.results, 'faults.tsv')) as f:
            rows = f.read().splitlines()
        self.assertEqual([x.split('\t')[1] for x in rows[1:-1]],
                         ['x86_64', 'arm64'])
        self.assertEqual(rows[-1], '# complete')
        # Judged once: each row once in the table, its cases once.
        self.assertEqual(r.stdout.count('| faults-i0 | arm64 |'), 1, r.stdout)
        self.assertIn('8 passed, 0 failed, 1 skipped', r.stdout)
        with open(os.path.join(jobs[1], 'faults.tsv'), 'a') as f:
            f.write('faults-i2\tarm64\tyes\tyes\tyes\t-\t-\tok\n')
        self.run_script('merge-results.sh', *jobs)
        with open(os.path.join(self.results, 'faults.tsv')) as f:
            self.assertNotEqual(f.read().splitlines()[-1], '# complete')
        # Without the faults-arm64 job's results: named, not passed
        r = self.run_script('merge-results.sh', jobs[0], jobs[2])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('error: no result of the fault stage: arm64 (part '
                      'faults-arm64) among the jobs merged', r.stdout)

    def test_an_rfc_part_selects_its_runs_and_a_wrong_one_is_named(self):
        # rfc, rfc-NAME, rfc-NAME-ARCH (a CI job each), each run once
        self.rfc('a', GOOD[0])
        with open(os.path.join(self.patches, 'rfc', 'a', 'arches'), 'w') as f:
            f.write('x86_64\narm64\n')
        self.rfc('b', GOOD[0])

        def runs(*parts):
            return subprocess.run(
                ['bash', '-c', f'. {SCRIPTS}/common.sh; rfc_runs "$@"', '-',
                 *parts], env=self.env, capture_output=True, text=True)
        for parts, want in [
                (['rfc'], ['a x86_64', 'a arm64', 'b x86_64']),
                (['rfc-a'], ['a x86_64', 'a arm64']),
                (['rfc-a-arm64', 'rfc-b', 'rfc-a-arm64'],
                 ['a arm64', 'b x86_64'])]:
            r = runs(*parts)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.splitlines(), want, parts)
        for part, msg in [('rfc-a-arm', "no RFC run 'rfc-a-arm': the RFCs "
                                        "are: a b "),
                          ('rfcb', "not a part of the RFC stage: 'rfcb'")]:
            r = runs(part)
            self.assertEqual(r.returncode, 1)
            self.assertIn(f'error: {msg}', r.stderr)

    def test_half_of_an_arch_configuration_stage_fails_the_merge(self):
        # CI's alltests-arm and builds-arm jobs: one without the other
        # is missing, not passed
        head = 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n'
        jobs = {'alltests-arm': ['alltests\tarm\tyes\tyes\tyes\t-\t-\tok'],
                'builds-arm': [f'{c}\tarm\tyes\t-\t-\t0\t-\tok'
                               for c in ('off', 'modules', 'warnings')]}
        dirs = []
        for job, rows in jobs.items():
            d = os.path.join(self.tmp, f'results-{job}')
            os.makedirs(d)
            with open(os.path.join(d, 'configs.tsv'), 'w') as f:
                f.write(head + ''.join(r + '\n' for r in rows) +
                        '# complete\n')
            dirs.append(d)
        self.results_of('pass.log')
        arch = os.path.join(self.tmp, 'results-x86_64')
        os.rename(self.results, arch)
        r = self.run_script('merge-results.sh', arch, dirs[0])
        self.assertEqual(r.returncode, 1)
        for c in ('off', 'modules', 'warnings'):
            self.assertIn(f'error: no result of the configuration stage: '
                          f'{c} on arm (part builds-arm)', r.stdout)
        r = self.run_script('merge-results.sh', arch, *dirs)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_kcsan_jobs_are_merged_with_the_baseline_boots_reports(self):
        # CI's kcsan-series job judges its reports without the baseline
        # boot, which kcsan-base ran: the merge compares them, and fails
        # without that job.
        head = 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n'
        rhead = 'run\tline\tkind\tfunctions\twhere\tbaseline\n'
        jobs = {
            'kcsan-series': (
                'kcsan\tx86_64\tyes\tyes\tyes\t-\t3/0/0\t3 cases as '
                'planned, 2 KCSAN reports: 0 in code the series changes, 2 in '
                'untouched code (no baseline boot in this run)\n'
                'kcsan-e2e\tx86_64\tyes\tyes\tyes\t-\t1/0/0\t1 cases as '
                'planned, no KCSAN report\n',
                'x86_64-kcsan\t7\tdata-race\ta_fn / b_fn\tuntouched code'
                '\tno baseline run\n'
                'x86_64-kcsan\t9\tdata-race\tc_fn\tuntouched code\t'
                'no baseline run\n'),
            'kcsan-base': (
                'base-kcsan-e2e\tx86_64\tyes\tyes\tyes\t-\t-\t1/0/0: '
                '1 cases as planned, 1 KCSAN reports: 0 in code the series '
                'changes, 1 in untouched code (no baseline boot in this '
                'run)\n',
                'base-kcsan-e2e\t4\tdata-race\tb_fn / a_fn\tuntouched '
                'code\t-\n'),
        }
        dirs = []
        for job, (rows, reports) in jobs.items():
            d = os.path.join(self.tmp, f'results-{job}')
            os.makedirs(d)
            with open(os.path.join(d, 'kcsan.tsv'), 'w') as f:
                f.write(head + rows + '# complete\n')
            with open(os.path.join(d, 'kcsan-reports.tsv'), 'w') as f:
                f.write(rhead + reports)
            dirs.append(d)
        self.results_of('pass.log')
        os.rename(self.results, os.path.join(self.tmp, 'results-x86_64'))
        arch = os.path.join(self.tmp, 'results-x86_64')
        r = self.run_script('merge-results.sh', arch, *dirs)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(self.results, 'kcsan-reports.tsv')) as f:
            reports = f.read()
        self.assertEqual(reports.count('run\tline'), 1, reports)
        self.assertIn('a_fn / b_fn\tuntouched code\tsame pair on the '
                      'baseline', reports)
        self.assertIn('c_fn\tuntouched code\tnot on the baseline', reports)
        self.assertIn('2 KCSAN reports: 0 in code the series changes, 1 '
                      'pre-existing (same pair on the baseline), 1 in '
                      'untouched code not on the baseline', r.stdout)
        # The baseline boot's own note is left as it was judged
        self.assertIn('1 KCSAN reports: 0 in code the series changes, 1 in '
                      'untouched code (no baseline boot in this run)',
                      r.stdout)
        shutil.rmtree(self.results)
        r = self.run_script('merge-results.sh', arch, dirs[0])
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: no result of the KCSAN stage: run '
                      'base-kcsan-e2e (part kcsan-base)', r.stdout)
        self.assertIn('error: KCSAN reports judged without the baseline '
                      'boot', r.stdout + r.stderr)

    def test_two_trees_end_in_one_line_and_any_failure_fails(self):
        # make check over both trees: each tree's run in RESULTS/TREE, one
        # closing line with their sums; a tree whose plan check failed,
        # or that left no counts, fails the whole.
        lines = []
        for tree in ('6.1', '6.12'):
            self.results_of('pass.log')
            r = self.run_script('check-results.py', '--arch', 'x86_64',
                                env=dict(self.env, TREE=tree))
            self.assertEqual(r.returncode, 0, r.stdout)
            lines.append([int(x) for x in re.fullmatch(
                r'(\d+) passed, (\d+) failed, (\d+) skipped',
                r.stdout.splitlines()[-1]).groups()])
            os.rename(self.results, self.results + '-' + tree)
        p, f, sk = (a + b for a, b in zip(*lines))
        os.makedirs(self.results)
        for tree in ('6.1', '6.12'):
            os.rename(self.results + '-' + tree,
                      os.path.join(self.results, tree))
        r = self.run_script('check-results.py', '--combine', '6.1', '6.12')
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stdout.splitlines()[-1],
                         f'{p} passed, {f} failed, {sk} skipped')
        with open(os.path.join(self.results, 'summary.md')) as f:
            summary = f.read()
        self.assertIn('## linux-source-6.12', summary)
        with open(os.path.join(self.results, '6.12', 'totals'), 'w') as f:
            f.write(f'{lines[1][0]} 1 {lines[1][2]} 1\n')
        r = self.run_script('check-results.py', '--combine', '6.1', '6.12')
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout.splitlines()[-1],
                         f'{p} passed, {lines[0][1] + 1} failed, {sk} skipped')
        os.remove(os.path.join(self.results, '6.12', 'totals'))
        r = self.run_script('check-results.py', '--combine', '6.1', '6.12')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: tree 6.12: no result counts', r.stdout)

    def test_a_part_a_tier_or_tree_does_not_have_is_refused(self):
        # Refused before anything is installed or applied; the series
        # has an RFC, but no fault stage (no faults/)
        self.rfc('a', GOOD[0])
        cases = [
            ({'TIER': 'check'}, ['configs-arm'],
             'configs-arm is a part of make check-full, not of make check'),
            ({'TIER': 'check'}, ['kcsan'],
             'kcsan is a stage of make check-full, not of make check'),
            ({'TIER': 'full', 'TREE': '6.12', 'CHECK_TREES': '6.12'},
             ['faults-arm64'], 'faults-arm64 is a stage that TREE=6.12 has no set-up for'),
            # The parts a CI job runs alone: each names what exists
            ({'TIER': 'check'}, ['builds-x86_64'],
             'builds-x86_64 is a part of make check-full, not of make check'),
            ({'TIER': 'full'}, ['alltests-arm64'],
             "no configuration part 'alltests-arm64'"),
            ({'TIER': 'full'}, ['rfc-nosuch'], "no RFC run 'rfc-nosuch'"),
            ({'TIER': 'full'}, ['kcsan-rfc-nosuch'],
             "no KCSAN run 'kcsan-rfc-nosuch'"),
            ({'TIER': 'full'}, ['kcsan-all'], "no KCSAN part 'kcsan-all'"),
            # PATCHES (set by the self-test) is one tree's series
            ({'TIER': 'check', 'CHECK_TREES': '6.1 6.12'}, ['host'],
             "PATCHES names one tree's series: give TREE= with it"),
        ]
        for env, args, msg in cases:
            r = self.run_script('check.sh', *args, env=dict(self.env, **env))
            self.assertNotEqual(r.returncode, 0, msg)
            self.assertIn(f'error: {msg}', r.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.results,
                                                         'stages.tsv')))
        # Asked of both trees (CHECK_MULTI), a part of a stage this tree
        # has no set-up for is left out, said so; KCSAN is every tree's.
        # The last part, unknown, stops the run before it does anything.
        env = dict(self.env, TIER='full', CHECK_MULTI='1')
        r = self.run_script('check.sh', 'faults-arm64', 'kcsan-series',
                            'kcsan-all', env=env)
        self.assertIn('faults-arm64: 6.1 has no kernel-patches/6.1/faults/, '
                      'not run on 6.1', r.stderr)
        self.assertNotIn('kcsan-series:', r.stderr)
        self.assertIn("error: no KCSAN part 'kcsan-all'", r.stderr)
        # A tree without RFCs refuses an RFC part; its KCSAN parts stand
        shutil.rmtree(os.path.join(self.patches, 'rfc'))
        env = dict(self.env, TIER='full')
        r = self.run_script('check.sh', 'rfc-a', env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('error: rfc-a is a stage that TREE=6.1 has no set-up '
                      'for: there is no kernel-patches/6.1/rfc/', r.stderr)
        r = self.run_script('check.sh', 'kcsan-rfc-a', env=env)
        self.assertIn('error: kcsan-rfc-a is a stage that TREE=6.1 has no '
                      'set-up for: there is no kernel-patches/6.1/rfc/',
                      r.stderr)
        env = dict(env, CHECK_MULTI='1')
        r = self.run_script('check.sh', 'kcsan-rfc-a', 'rfc-a', 'kcsan-all',
                            env=env)
        for part in ('kcsan-rfc-a', 'rfc-a'):
            self.assertIn(f'{part}: 6.1 has no kernel-patches/6.1/rfc/, not '
                          'run on 6.1', r.stderr)
        self.assertIn("error: no KCSAN part 'kcsan-all'", r.stderr)
        # Which stage a part needs, and which stages a tree has
        r = subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; for p in "$@"; do '
             'echo "$p=$(stage_of_part "$p")"; done; '
             'for st in rfc kcsan faults bench; do '
             '! tree_has_stage "$st" || echo "has $st"; done',
             '-', 'rfc', 'rfc-a-arm64', 'kcsan-rfc-a', 'kcsan-base', 'faults',
             'faults-arm64', 'x86_64', 'alltests-arm'],
            env=self.env, capture_output=True, text=True)
        self.assertEqual(r.stdout.split(), [
            'rfc=rfc', 'rfc-a-arm64=rfc', 'kcsan-rfc-a=rfc',
            'kcsan-base=kcsan', 'faults=faults', 'faults-arm64=faults',
            'x86_64=', 'alltests-arm=', 'has', 'kcsan'])
        os.makedirs(os.path.join(self.patches, 'faults'))
        r = subprocess.run(
            ['bash', '-c', f'. {SCRIPTS}/common.sh; tree_has_stage faults'],
            env=self.env)
        self.assertEqual(r.returncode, 0)

    def test_skip_with_the_wrong_reason_fails(self):
        self.results_of('wrong-skip.log')
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: beta.skips_on_x86 skipped with "some '
                      'other reason"; the plan says "not on this arch"',
                      r.stdout)

    def test_a_parameterised_skip_takes_its_parameters_reason(self):
        # 6.12's KUnit prints no reason for a parameterised case whose
        # parameters all skipped, each of them with its own
        self.results_of('param-skip.log')
        r = self.check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.results_of('param-skip-mixed.log')
        r = self.check()
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: x86_64: beta.skips_on_x86 skipped with ""; '
                      'the plan says "not on this arch"', r.stdout)

    def test_skip_where_the_plan_wants_a_pass_fails(self):
        self.results_of('pass.log', arch='arm')
        r = self.check('arm')
        self.assertEqual(r.returncode, 1)
        self.assertIn('error: arm: beta.skips_on_x86 skipped ("not on this '
                      'arch"); the plan does not allow a skip on arm',
                      r.stdout)

    # interrupts

    def interrupt(self, sig):
        self.series(*GOOD)
        started = os.path.join(self.tmp, 'started')
        self.env.update(FAKE_KUNIT_STARTED=started,
                        KUNIT_PY='python3 ' + os.path.join(FIX,
                                                           'fake-kunit.py'))
        p = subprocess.Popen([script('kunit.sh'), 'x86_64'],
                             env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             start_new_session=True,
                             preexec_fn=default_signals)
        self.wait_for(started)
        t0 = time.monotonic()
        os.killpg(p.pid, sig)	# as a terminal's Ctrl-C does
        out, err = p.communicate(timeout=30)
        self.assertLess(time.monotonic() - t0, 10, 'did not stop at once')
        self.assertEqual(p.returncode, 130, err)
        self.assertIn('interrupted: the x86_64 run stopped; the next run '
                      'repairs the cache', err)
        self.assertNotIn('timeout:', out + err)
        self.assertNotIn('passed,', out)	# no results checked
        with open(os.path.join(self.results, 'x86_64.status')) as f:
            self.assertEqual(f.read(), 'not run: interrupted\n')
        r = self.run_script('apply.sh')	# the next run goes on
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_sigint_stops_the_run_and_says_interrupted(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm_stops_the_run_and_says_interrupted(self):
        self.interrupt(signal.SIGTERM)

    # the merge-rate table of make bench

    def bench_table(self, logs):
        """bench-e2e.py over LOGS ({name: text}), with a gnuplot that
        draws nothing: its exit status and bench.md."""
        bench = os.path.join(self.tmp, 'bench')
        out = os.path.join(self.tmp, 'out')
        fake = os.path.join(self.tmp, 'bin')
        for d in (bench, out, fake):
            os.makedirs(d, exist_ok=True)
        with open(os.path.join(fake, 'gnuplot'), 'w') as f:
            f.write('#!/bin/sh\ncat >/dev/null\n')
        os.chmod(os.path.join(fake, 'gnuplot'), 0o755)
        for name, text in logs.items():
            with open(os.path.join(bench, name), 'w') as f:
                f.write(text)
        p = subprocess.run(
            ['python3', script('bench-e2e.py'), bench, out, 'x86_64'],
            env=dict(self.env, PATH=fake + ':' + os.environ['PATH'],
                     DMATOPICS_TREE='7.3'),
            capture_output=True, text=True)
        with open(os.path.join(out, 'bench.md')) as f:
            return p.returncode, f.read()

    BENCH_LEVEL = (
        '    # bench: level 0: disk vda: requests 64 pages 8192 entries 192 '
        'merged 8000 rate 97.6%\n'
        '    # bench: level 0: disk sda: requests 64 pages 8192 entries {sg} '
        'merged 0 rate 0.0%\n'
        '{dma}'
        '    # bench: level 0: frames ascending 8190 descending 0 apart 0\n')
    DMA_LINE = ('    # bench: level 0: disk sda: dma_map_sg calls 64 entries '
                '{sg} segments {segs} rate 0.0%\n')

    def ahci_rows(self, md, iommu):
        return [r.rstrip(' |').split(' | ')[3:] for r in md.splitlines()
                if r.startswith(f'| x86_64 | 7.3 order (ascending) | {iommu}')]

    def test_an_iommu_boot_not_proven_behind_it_is_left_out_and_fails(self):
        proven = '    # bench: disk sda: behind the IOMMU\n'
        rc, md = self.bench_table({
            'x86_64-e2e-1.log': self.BENCH_LEVEL.format(
                sg=1024, dma=self.DMA_LINE.format(sg=1024, segs=1024)),
            'x86_64-e2e-iommu-1.log': self.BENCH_LEVEL.format(
                sg=8192, dma=self.DMA_LINE.format(sg=8192, segs=512)) +
            proven,
            # figures, but the init did not prove the disk translated:
            # never a merge rate behind the IOMMU
            'x86_64-e2e-iommu-2.log': self.BENCH_LEVEL.format(
                sg=4096, dma=self.DMA_LINE.format(sg=4096, segs=4096)),
        })
        self.assertEqual(rc, 1, md)
        self.assertEqual(self.ahci_rows(md, 'none'),
                         [['0', '1', '8192', '1024', '87.5%', '1024',
                           '87.5%']])
        iommu = self.ahci_rows(md, 'intel')
        self.assertIn('1 of 2 boots not proven behind the IOMMU', iommu[0][0])
        self.assertEqual(iommu[1], ['0', '1', '8192', '8192', '0.0%', '512',
                                    '93.8%'])
        # the virtio disk's table is the same boots' vda
        self.assertIn('| x86_64 | 7.3 order (ascending) | 0 | 1 | 8192 | '
                      '192 | 97.7% |', md)
        self.assertIn('| x86_64 | 2004 order (top down, experiments/) | '
                      'intel-iommu (q35) | not run |', md)

    def test_a_level_no_boot_gave_figures_for_is_listed(self):
        # the IOMMU boot ended before level 99, which the other boot did
        level99 = self.BENCH_LEVEL.replace('level 0:', 'level 99:')
        rc, md = self.bench_table({
            'x86_64-e2e-1.log': self.BENCH_LEVEL.format(
                sg=1024, dma=self.DMA_LINE.format(sg=1024, segs=1024)) +
            level99.format(sg=2048, dma=self.DMA_LINE.replace(
                'level 0:', 'level 99:').format(sg=2048, segs=2048)),
            'x86_64-e2e-iommu-1.log': self.BENCH_LEVEL.format(
                sg=8192, dma=self.DMA_LINE.format(sg=8192, segs=512)) +
            '    # bench: disk sda: behind the IOMMU\n',
        })
        self.assertEqual(rc, 0, md)
        self.assertEqual(self.ahci_rows(md, 'none')[1],
                         ['99', '1', '8192', '2048', '75.0%', '2048',
                          '75.0%'])
        self.assertEqual(self.ahci_rows(md, 'intel')[1][:3],
                         ['99', '0', 'no figures in any boot (see '
                          'x86_64-e2e-iommu-N.log)'])

    def test_a_kernel_without_the_dma_tracepoint_is_not_measured(self):
        # 6.1: no dma:dma_map_sg; an IOMMU boot is proven by the disk's
        # IOMMU group alone, and its segments are not measured
        no_event = ('    # bench: no dma:dma_map_sg event in this kernel: '
                    'DMA segments not measured\n')
        rc, md = self.bench_table({
            'x86_64-e2e-1.log':
                no_event + self.BENCH_LEVEL.format(sg=1024, dma=''),
            'x86_64-e2e-iommu-1.log':
                no_event + self.BENCH_LEVEL.format(sg=2048, dma='') +
                '    # bench: disk sda: behind the IOMMU\n',
        })
        self.assertEqual(rc, 0, md)
        self.assertEqual(self.ahci_rows(md, 'none'),
                         [['0', '1', '8192', '1024', '87.5%',
                           'not measured', 'not measured']])
        self.assertEqual(self.ahci_rows(md, 'intel'),
                         [['0', '1', '8192', '2048', '75.0%',
                           'not measured', 'not measured']])

    # the lock

    def test_a_second_apply_waits_for_the_lock_and_says_so(self):
        self.series(*GOOD)
        with open(os.path.join(self.cache, 'lock'), 'a') as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            p = subprocess.Popen([script('apply.sh')],
                                 env=self.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            self.wait_for_line(p.stderr,
                               '>>> waiting for another run that uses')
            self.assertIsNone(p.poll(), 'apply.sh did not wait')
            fcntl.flock(lk, fcntl.LOCK_UN)
            out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)

    def test_a_second_check_waits_for_the_first_and_clears_nothing(self):
        # Each make check first clears the results it will write: a second
        # run waits for the first rather than wipe what it is writing.
        os.makedirs(self.results, exist_ok=True)
        stages = os.path.join(self.results, 'stages.tsv')
        with open(stages, 'w') as f:
            f.write('the first run\n')
        # Its output in a file: its first two lines can come in one
        # write, which a select() on a pipe would see as one line.
        err = os.path.join(self.tmp, 'second.err')
        with open(os.path.join(self.results, '.lock'), 'a') as lk, \
                open(err, 'w') as errf:
            fcntl.flock(lk, fcntl.LOCK_EX)
            p = subprocess.Popen([script('check.sh'), 'host'],
                                 env=dict(self.env, TIER='check'),
                                 stdout=subprocess.DEVNULL, stderr=errf,
                                 start_new_session=True)
            try:
                deadline = time.monotonic() + 120
                while True:
                    with open(err) as f:
                        said = f.read()
                    if ('>>> waiting for another make check or check-full '
                            'that writes') in said:
                        break
                    if time.monotonic() > deadline:
                        self.fail(f'check.sh did not say in 120 s that it '
                                  f'waits: {said!r}')
                    time.sleep(0.1)
                self.assertIsNone(p.poll(), 'check.sh did not wait')
                with open(stages) as f:
                    self.assertEqual(f.read(), 'the first run\n')
            finally:
                # Killed while it waits, before the lock is let go: it
                # must never go on to run its stages.
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait(timeout=30)

    def test_a_run_keeps_its_tree_until_it_ends(self):
        self.series(*GOOD)
        started = os.path.join(self.tmp, 'started')
        self.env.update(FAKE_KUNIT_STARTED=started,
                        KUNIT_PY='python3 ' + os.path.join(FIX,
                                                           'fake-kunit.py'))
        run = subprocess.Popen([script('run-kunit.sh'),
                                'x86_64'], env=self.env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               start_new_session=True)
        self.wait_for(started)
        other = os.path.join(self.tmp, 'other')
        os.makedirs(other)
        self.series(GOOD[0], patches=other)
        p = subprocess.Popen([script('apply.sh')],
                             env=dict(self.env, PATCHES=other),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        self.wait_for_line(p.stderr, '>>> waiting for another run that uses')
        self.assertIsNone(p.poll(), 'the tree changed under a running build')
        with open(os.path.join(self.src, 'hello.c')) as f:
            self.assertIn('/* second */', f.read())
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(timeout=30)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        with open(os.path.join(self.src, 'hello.c')) as f:
            self.assertNotIn('/* second */', f.read())

    def test_an_unchanged_build_is_booted_without_make(self):
        self.series(*GOOD)
        self.env.update(FAKE_KUNIT_LOG=os.path.join(FIX, 'pass.log'),
                        KUNIT_PY='python3 ' + os.path.join(FIX,
                                                           'fake-kunit.py'))
        run = [script('run-kunit.sh'), 'x86_64']

        def subcommand():
            r = subprocess.run(run, env=self.env, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout.split('fake kunit.py: running ')[1].split()[0]
        self.assertEqual(subcommand(), 'run')
        self.assertEqual(subcommand(), 'exec')
        # Something else built in the directory: build again.
        vmlinux = os.path.join(self.cache, 'build', 'x86_64', 'vmlinux')
        os.utime(vmlinux, (1, 1))
        self.assertEqual(subcommand(), 'run')
        self.assertEqual(subcommand(), 'exec')
        # Another kunitconfig: build again.
        kc = os.path.join(self.tmp, 'kunitconfig')
        with open(kc, 'w') as f:
            f.write('CONFIG_KUNIT=y\n')
        self.env['KUNITCONFIG'] = kc
        self.assertEqual(subcommand(), 'run')
        # Another series: build again.
        self.series(GOOD[0])
        self.assertEqual(subcommand(), 'run')

    def test_two_runs_of_different_arches_both_give_their_results(self):
        self.series(*GOOD)
        self.env.update(FAKE_KUNIT_LOG=os.path.join(FIX, 'pass.log'),
                        KUNIT_PY='python3 ' + os.path.join(FIX,
                                                           'fake-kunit.py'))
        ps = [subprocess.Popen([script('kunit.sh'), arch],
                               env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
              for arch in ('x86_64', 'arm')]
        outs = [p.communicate(timeout=60) for p in ps]
        self.assertEqual(ps[0].returncode, 0, outs[0])
        self.assertTrue(outs[0][0].endswith('2 passed, 0 failed, 1 skipped\n'))
        # The plan wants beta.skips_on_x86 to pass on arm: the arm run
        # reads its own log and says so.
        self.assertEqual(ps[1].returncode, 1)
        self.assertIn('error: arm: beta.skips_on_x86 skipped', outs[1][0])

    def test_two_applies_at_once_both_finish_with_the_series(self):
        self.series(*GOOD)
        ps = [subprocess.Popen([script('apply.sh')],
                               env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
        for p in ps:
            _, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err)
        with open(os.path.join(self.src, 'hello.c')) as f:
            self.assertIn('/* second */', f.read())
        self.assertEqual(git(self.src, 'status', '--porcelain'), '')
        with open(os.path.join(self.cache, 'linux.state')) as f:
            self.assertEqual(f.read().strip(), self.head())

    def test_a_run_beside_a_long_stage_does_not_wait_for_it(self):
        # A stage (the configuration stage of make check) has put the
        # tree at the series and builds under the shared lock for long;
        # a run that starts before the series ref exists applies the
        # series again and goes on under the shared lock beside it.
        self.series(*GOOD)
        r = self.run_script('apply.sh')
        self.assertEqual(r.returncode, 0, r.stderr)
        for ref in git(self.src, 'for-each-ref', '--format=%(refname)',
                       'refs/dmatopics/series/').split():
            git(self.src, 'update-ref', '-d', ref)
        with open(os.path.join(self.cache, 'lock'), 'a') as lk:
            fcntl.flock(lk, fcntl.LOCK_SH)
            r = self.run_script('apply.sh')
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn('waiting', r.stderr)
            self.assertIn('applied 2 patch(es)', r.stderr)
        with open(os.path.join(self.src, 'hello.c')) as f:
            self.assertIn('/* second */', f.read())

    # baseline files (kunit/baseline/VERSION/ARCH.tsv)

    BASELINE = ('# kunit.py\'s default run\n# version: 6.1.192-3\n'
                '# arch: um\n# command: kunit.py run\n'
                '# date: 2026-12-04T00:00:00Z\n'
                'alpha.passes\tSUCCESS\nalpha.skips\tSKIPPED\n'
                '# end: 2 cases\n')

    def select_baseline(self, text, version='6.1.192-3', name=None):
        d = os.path.join(self.tmp, 'baseline', name or version)
        os.makedirs(d, exist_ok=True)
        if text is not None:
            with open(os.path.join(d, 'um.tsv'), 'w') as f:
                f.write(text)
        return self.run_script('kunit_baseline.py', 'select',
                               os.path.join(self.tmp, 'baseline'),
                               '--version', version, '--arch', 'um')

    def test_a_valid_baseline_file_is_used(self):
        r = self.select_baseline(self.BASELINE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.strip().endswith('6.1.192-3/um.tsv'))

    def test_a_baseline_file_of_another_version_is_never_used(self):
        self.select_baseline(self.BASELINE)
        r = self.select_baseline(None, version='6.1.200-1')
        self.assertEqual(r.returncode, 1)
        self.assertIn('no baseline file for linux-source-6.1 6.1.200-1',
                      r.stderr)
        self.assertIn('files for 6.1.192-3 only', r.stderr)
        # A file put under the new version's name but made on the old.
        r = self.select_baseline(self.BASELINE, version='6.1.200-1')
        self.assertEqual(r.returncode, 1)
        self.assertIn('made on linux-source-6.1 6.1.192-3, the installed '
                      'one is 6.1.200-1', r.stderr)

    def test_a_malformed_baseline_file_is_named_and_not_used(self):
        r = self.select_baseline(self.BASELINE.replace(
            'alpha.skips\tSKIPPED', 'alpha.skips SKIPPED'))
        self.assertEqual(r.returncode, 1)
        self.assertIn('um.tsv:7: malformed line', r.stderr)
        r = self.select_baseline(self.BASELINE.replace('SKIPPED', 'MAYBE'))
        self.assertEqual(r.returncode, 1)
        self.assertIn('malformed line', r.stderr)

    def test_a_truncated_baseline_file_is_named_and_not_used(self):
        for cut in (len(self.BASELINE) - 1,
                    self.BASELINE.index('# end'),
                    self.BASELINE.index('alpha.skips')):
            r = self.select_baseline(self.BASELINE[:cut])
            self.assertEqual(r.returncode, 1, cut)
            self.assertIn('truncated', r.stderr)
        r = self.select_baseline(self.BASELINE.replace('# end: 2', '# end: 3'))
        self.assertEqual(r.returncode, 1)
        self.assertIn('the end line says 3 cases, the file has 2', r.stderr)

    def test_a_baseline_write_interrupted_is_named_and_not_used(self):
        # make baseline writes FILE.tmp and renames it at the end: a
        # FILE.tmp left behind is an interrupted write, even beside a
        # complete older FILE.
        d = os.path.join(self.tmp, 'baseline', '6.1.192-3')
        os.makedirs(d)
        with open(os.path.join(d, 'um.tsv.tmp'), 'w') as f:
            f.write(self.BASELINE[:40])
        r = self.select_baseline(self.BASELINE)
        self.assertEqual(r.returncode, 1)
        self.assertIn('um.tsv.tmp: left half-written by an interrupted '
                      '"make baseline"', r.stderr)

    def test_a_baseline_is_written_from_a_real_log_and_diffed(self):
        f = os.path.join(self.tmp, 'b', 'x86_64.tsv')
        r = self.run_script('kunit_baseline.py', 'write',
                            os.path.join(FIX, 'pass.log'), f,
                            '--version', '6.1.192-3', '--arch', 'x86_64',
                            '--command', 'kunit.py run')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(f + '.tmp'))
        r = self.run_script('kunit_baseline.py', 'check', f,
                            '--version', '6.1.192-3', '--arch', 'x86_64')
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(f) as fh:
            text = fh.read()
        g = os.path.join(self.tmp, 'b', 'changed.tsv')
        with open(g, 'w') as fh:
            fh.write(text.replace('\tSUCCESS', '\tFAILURE', 1))
        r = self.run_script('kunit_baseline.py', 'diff', f, g)
        self.assertEqual(r.returncode, 1)
        self.assertIn('SUCCESS in', r.stdout)
        self.assertIn('FAILURE now', r.stdout)
        r = self.run_script('kunit_baseline.py', 'write',
                            os.path.join(FIX, 'crash.log'), g,
                            '--version', '6.1.192-3', '--arch', 'x86_64',
                            '--command', 'kunit.py run')
        self.assertEqual(r.returncode, 1)
        self.assertIn('crashed or timed out', r.stderr)


class CoverLetterPlan(unittest.TestCase):
    """The test plan of a topic's cover letter (scripts/checks/cover-letter.py)."""

    @staticmethod
    def cover_letter():
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            'cover_letter', script('cover-letter.py'))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    def test_a_section_ends_at_a_blank_line(self):
        mod = self.cover_letter()
        with tempfile.NamedTemporaryFile('w', suffix='.plan') as plan:
            plan.write('# lib/a_kunit.c (CONFIG_A)\n'
                       '# More words (not a section).\n'
                       'a.one x86_64 arm\n'
                       '\n'
                       '# scripts/runs/e2e/init.c, the end-to-end boot\n'
                       'e2e.two x86_64\n'
                       '\n'
                       '# mm/b_kunit.c (CONFIG_B)\n'
                       'b.three arm64\n')
            plan.flush()
            rows = mod.test_plan(plan.name, ['lib/'])
        self.assertEqual(rows, ['', '  lib/a_kunit.c (CONFIG_A)',
                                '    a.one: x86_64 arm'])

    def test_parentheses_in_a_role_or_a_name_keep_the_person_whole(self):
        mod = self.cover_letter()
        with tempfile.NamedTemporaryFile('w', suffix='.roles') as roles:
            roles.write('A B <a@example.org> (maintainer:MEDIA INPUT '
                        'INFRASTRUCTURE (V4L/DVB))\n'
                        '"J R (AMD)" <j@example.org> (maintainer:IOMMU '
                        'SUBSYSTEM)\n'
                        'list@example.org (open list)\n')
            roles.flush()
            to, cc = mod.recipients(roles.name)
        self.assertEqual(to, ['A B <a@example.org>',
                              '"J R (AMD)" <j@example.org>'])
        self.assertEqual(cc, ['list@example.org'])

    def test_a_tree_renames_a_section_and_drops_one_it_has_no_case_of(self):
        # kunit/plan-TREE: "# FILE (CONFIG_X) in place of CONFIG_Y" names
        # the section of CONFIG_Y there; a section whose rows are all
        # "none" there prints no heading
        mod = self.cover_letter()
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'plan'), 'w') as plan:
            plan.write('# kernel/a_kunit.c (CONFIG_A)\n'
                       'a.one x86_64\n'
                       '\n'
                       '# kernel/c_kunit.c (CONFIG_C)\n'
                       'c.three none\n'
                       '\n'
                       '# kernel/b_kunit.c (CONFIG_B)\n'
                       'b.two none\n')
        with open(os.path.join(d, 'plan-9.9'), 'w') as other:
            other.write('# kernel/a2_kunit.c (CONFIG_A2) in place of '
                        'CONFIG_A\n'
                        'b.two arm\n')
        old = os.environ.get('TREE')
        os.environ['TREE'] = '9.9'
        try:
            rows = mod.test_plan(os.path.join(d, 'plan'), ['kernel/'])
        finally:
            if old is None:
                del os.environ['TREE']
            else:
                os.environ['TREE'] = old
            shutil.rmtree(d)
        self.assertEqual(rows, ['', '  kernel/a2_kunit.c (CONFIG_A2)',
                                '    a.one: x86_64',
                                '', '  kernel/b_kunit.c (CONFIG_B)',
                                '    b.two: arm'])

    def test_added_recipients_are_named_once_and_to_wins(self):
        mod = self.cover_letter()
        with tempfile.NamedTemporaryFile('w', suffix='.recipients') as f:
            f.write('# who get_maintainer.pl misses\n'
                    'To: C D <c@example.org>  # no MAINTAINERS entry\n'
                    'Cc: list@example.org\n'
                    'Cc: A B <A@example.org>\n'
                    'Cc: kunit@example.org\n')
            f.flush()
            to, cc = mod.merge(['A B <a@example.org>'],
                               ['list@example.org'],
                               *mod.added_recipients(f.name))
        self.assertEqual(to, ['A B <a@example.org>', 'C D <c@example.org>'])
        self.assertEqual(cc, ['list@example.org', 'kunit@example.org'])

    def test_a_bad_recipients_line_is_named(self):
        mod = self.cover_letter()
        with tempfile.NamedTemporaryFile('w', suffix='.recipients') as f:
            f.write('To: C D <c@example.org>\nBcc: e@example.org\n')
            f.flush()
            with self.assertRaises(SystemExit) as e:
                mod.added_recipients(f.name)
        self.assertIn(':2: expected', str(e.exception))


if __name__ == '__main__':
    unittest.main(verbosity=2)
