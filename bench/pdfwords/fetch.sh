#!/usr/bin/env bash
# fetch.sh fills the PDF cache of bench/pdfwords: it downloads a few Debian
# documentation packages with apt-get download, unpacks them with dpkg -x
# and copies the chosen PDFs (gunzipped where the package ships .pdf.gz)
# to $DIR/pdfs. Nothing is installed and nothing lands in the repository.
#
#   bash bench/pdfwords/fetch.sh [DIR]    # DIR: ${XDG_CACHE_HOME:-~/.cache}/webacq-pdfwords
set -euo pipefail

dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/webacq-pdfwords}
mkdir -p "$dir/debs" "$dir/tree" "$dir/pdfs"

# package  path-in-package (relative to /usr/share/doc)  — the generators
# differ: pdfTeX old and new, dblatex via pdfTeX and via xdvipdfmx,
# LaTeX via xdvipdfmx, Ghostscript, htmldoc, LibreOffice Writer, cairo,
# and Acrobat Distiller.
picks=(
  "camlidl-doc                 camlidl/camlidl-1.04.doc.pdf"
  "freefem-doc                 freefem-doc/freefem.pdf"
  "docbook-xsl-doc-pdf         docbook-xsl-doc-pdf/doc/reference.pdf"
  "auto-multiple-choice-doc-pdf auto-multiple-choice/auto-multiple-choice.en.pdf"
  "auto-multiple-choice-doc-pdf auto-multiple-choice/latex/automultiplechoice.pdf"
  "gri-pdf-doc                 gri/gri.pdf"
  "xfig-doc                    xfig/xfig-howto.pdf"
  "xfig-doc                    xfig/xfig_ref_en.pdf"
  "fonts-sil-abyssinica        fonts-sil-abyssinica/documentation/AbyssinicaSILFontFeatures.pdf"
  "fonts-sil-abyssinica        fonts-sil-abyssinica/documentation/AbyssinicaSILTypeSample.pdf"
  "fonts-sil-padauk            fonts-sil-padauk/documentation/Padauk-features.pdf"
  "fonts-sil-scheherazade      fonts-sil-scheherazade/documentation/Scheherazade-features.pdf"
  "fonts-sil-doulos            fonts-sil-doulos/documentation/pdf/about.pdf"
  "fonts-sil-doulos            fonts-sil-doulos/documentation/pdf/features.pdf"
  "fonts-sil-doulos            fonts-sil-doulos/documentation/pdf/history.pdf"
)

declare -A seen=()
for p in "${picks[@]}"; do
  read -r pkg path <<<"$p"
  if [[ -z ${seen[$pkg]:-} ]]; then
    seen[$pkg]=1
    if ! ls "$dir/debs/${pkg}_"*.deb >/dev/null 2>&1; then
      (cd "$dir/debs" && apt-get download "$pkg")
    fi
    dpkg -x "$(ls "$dir/debs/${pkg}_"*.deb | head -n1)" "$dir/tree"
  fi
  src="$dir/tree/usr/share/doc/$path"
  dst="$dir/pdfs/$pkg--$(basename "$path")"
  if [[ -f $src ]]; then
    cp "$src" "$dst"
  elif [[ -f $src.gz ]]; then
    gunzip -c "$src.gz" >"$dst"
  else
    echo "fetch.sh: $pkg has no $path" >&2
  fi
done
# An English word list, for the share of words found in it (split and
# glued words are not).
if ! ls "$dir/debs/wamerican_"*.deb >/dev/null 2>&1; then
  (cd "$dir/debs" && apt-get download wamerican)
fi
dpkg -x "$(ls "$dir/debs/wamerican_"*.deb | head -n1)" "$dir/tree"
ls -l "$dir/pdfs"
