# Sourced by the benchmark scripts: run_facts prints the machine and commit lines that head
# every benches/*.md report.
run_facts() {
  echo "- machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "- commit: $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
}
