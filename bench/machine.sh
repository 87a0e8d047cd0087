# Sourced by bench/run and bench/run-studio: sets cpu (lscpu's model name), cores (nproc) and machine, the name of
# this machine's results in bench/results/ ($1 of the sourcing script when given, else derived from cpu and cores).
cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
cores=$(nproc)
machine=${1:-$(echo "${cpu}-${cores}core" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-' | sed 's/-$//' | tr 'A-Z' 'a-z')}
