# Sourced by the benchmark scripts: fetch_deb PKG VERSION SHA256 DIR downloads a Debian package
# once into DIR (apt-get download), checks its pinned sha256 and unpacks it into DIR/root.
fetch_deb() {
  local pkg="$1" ver="$2" sha="$3" dir="$4"
  local deb="${pkg}_${ver}_all.deb"
  [ -d "$dir/root" ] && return 0
  mkdir -p "$dir"
  (cd "$dir" && apt-get download "$pkg=$ver" >/dev/null 2>&1)
  echo "$sha  $dir/$deb" | sha256sum -c --quiet
  dpkg-deb -x "$dir/$deb" "$dir/root"
}
