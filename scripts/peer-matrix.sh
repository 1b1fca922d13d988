#!/usr/bin/env bash
# Runs the framework adapters' tests against other versions of the frameworks than the devDependencies,
# without touching package.json or the lockfile: each `name@version` is installed into a temporary
# folder (`npm i --no-save`), and vitest resolves the framework from there. What passed goes into
# TESTED in test/package/peers.test.ts, which holds package.json's peerDependencies to it.
#   bash scripts/peer-matrix.sh ai@7.0.185 @openai/agents@0.20.0
# Needs the npm registry; not part of CI. Each version costs an install (~10 s) and one adapter suite.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
for spec in "$@"; do
  name=${spec%@*}
  version=${spec##*@}
  dir=$(mktemp -d)
  (cd "$dir" && echo '{"name":"peer-matrix","private":true}' > package.json \
    && npm i --no-save --no-audit --no-fund "$spec" "zod@$(node -p "require('$REPO/package.json').devDependencies.zod")" > install.log 2>&1)
  pkgdir="$dir/node_modules/$name"
  case "$name" in
    ai) tests="test/adapters/ai.test.ts test/adapters/ai-routes.test.ts"
        alias="[{ find: /^ai\\/test\$/, replacement: '$pkgdir/dist/test/index.js' }, { find: /^ai\$/, replacement: '$pkgdir/dist/index.js' }]" ;;
    @openai/agents) tests="test/adapters/openai-agents.test.ts test/adapters/openai-agents-routes.test.ts"
        alias="[{ find: /^@openai\\/agents\$/, replacement: '$pkgdir/dist/index.mjs' }]" ;;
    langchain) tests="test/adapters/langchain.test.ts test/adapters/langchain-routes.test.ts"
        alias="[{ find: /^langchain\$/, replacement: '$pkgdir/dist/index.js' }]" ;;
    *) echo "unknown framework $name" >&2; exit 2 ;;
  esac
  # A plain object (no import of vitest/config): the file lives outside the repository.
  cat > "$dir/vitest.config.mjs" <<CONFIG
export default { root: "$REPO", resolve: { alias: $alias }, test: { include: ["test/adapters/**/*.test.ts"], testTimeout: 60000, pool: "forks" } };
CONFIG
  echo "== $spec ($(node -p "require('$pkgdir/package.json').version"))"
  (cd "$REPO" && nice -n 10 npx vitest run --config "$dir/vitest.config.mjs" $tests 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | grep -E '×|Tests ' || true)
  rm -rf "$dir"
done
