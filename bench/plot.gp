# SPDX-License-Identifier: LGPL-2.1-or-later
# Grouped bars of bench/run's medians, relative to raw librados aio at the
# same ops in flight; each bar is labelled with its absolute value. Variables
# come from bench/report.py: out, d1/t1 and d2/t2 (data and title of each
# panel), xt (the xtics command), titles (one per bar colour), n, bw (box
# width), ymax.
set terminal pngcairo size 1600,1200 font "DejaVu Sans,12"
set output out
set datafile missing "?"
set style fill solid 0.85 border -1
set boxwidth bw
set grid ytics
set yrange [0:ymax]
set xrange [-0.6:4.6]
set ylabel "relative to raw librados aio, same ops in flight (= 1)"
set key outside right top vertical Left reverse width 2
set lmargin 10
set rmargin 36
set bmargin 4
set tmargin 3
eval xt
set multiplot layout 2,1 title "libstriped and its peers: medians (bars relative to raw librados; labels are absolute values)"
do for [panel=1:2] {
	d = (panel == 1) ? d1 : d2
	set title ((panel == 1) ? t1 : t2) font ",13"
	if (panel == 2) { unset key }
	plot 1 with lines dt 2 lc rgb "gray40" notitle, \
	     for [s=0:n-1] d index s using 1:(column(2) > ymax ? ymax : column(2)) \
	         with boxes lc s+1 title word(titles, s+1), \
	     for [s=0:n-1] d index s using 1:(column(2) > ymax ? ymax : column(2)):3 \
	         with labels rotate by 90 left offset 0,0.4 font ",9" notitle
}
unset multiplot
