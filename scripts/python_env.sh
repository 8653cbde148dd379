# Sourced by quickstart.sh and test.sh: chooses the Python that installs and runs the
# project, and prints it to stdout (messages go to stderr).
#
# 1. An activated virtual environment ($VIRTUAL_ENV) is used as it is.
# 2. Else the project's own environment, $SUBURBIA_VENV (default: .venv in the
#    repository), is reused if it exists.
# 3. Else the first Python 3.10+ on PATH (python, then python3) is used directly if it
#    lets pip install into it. A system Python marked EXTERNALLY-MANAGED (PEP 668, as on
#    current Debian and Ubuntu) refuses that: then $SUBURBIA_VENV is made with
#    --system-site-packages (what the system already has, e.g. torch, is not downloaded
#    again) and used.

SUBURBIA_STDLIB_QUERY='import sys, sysconfig; print(sysconfig.get_path("stdlib")); print(int(sys.prefix != sys.base_prefix))'

suburbia_base_python() {
    local candidate
    for candidate in python python3; do
        if command -v "$candidate" >/dev/null 2>&1 \
                && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    echo "error: no Python 3.10 or later on PATH (python or python3)" >&2
    return 1
}

# Exit status 0 if pip may not install into this Python (PEP 668): it is not a virtual
# environment and its standard library holds the EXTERNALLY-MANAGED marker.
suburbia_externally_managed() {
    local answer stdlib in_venv
    answer=$("$1" -c "$SUBURBIA_STDLIB_QUERY") || return 1
    stdlib=$(printf '%s\n' "$answer" | sed -n 1p)
    in_venv=$(printf '%s\n' "$answer" | sed -n 2p)
    [ "$in_venv" = 0 ] && [ -f "$stdlib/EXTERNALLY-MANAGED" ]
}

suburbia_python() {
    local root="$1" venv base
    venv="${SUBURBIA_VENV:-$root/.venv}"
    if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
        echo "Using the active virtual environment $VIRTUAL_ENV" >&2
        echo "$VIRTUAL_ENV/bin/python"
        return 0
    fi
    if [ -x "$venv/bin/python" ]; then
        echo "Using the project's virtual environment $venv (activate it with: source $venv/bin/activate)" >&2
        echo "$venv/bin/python"
        return 0
    fi
    base=$(suburbia_base_python) || return 1
    if ! suburbia_externally_managed "$base"; then
        echo "$base"
        return 0
    fi
    echo "$base is externally managed (PEP 668): making a virtual environment in $venv" >&2
    if ! "$base" -m venv --system-site-packages "$venv" >&2; then
        rm -rf "$venv"
        echo "error: cannot make a virtual environment with $base: install the venv module" \
             "(on Debian and Ubuntu: apt-get install python3-venv) or activate an environment" \
             "of your own and run this script again" >&2
        return 1
    fi
    echo "Made the virtual environment $venv; the project is installed there (activate it with: source $venv/bin/activate)" >&2
    echo "$venv/bin/python"
}
