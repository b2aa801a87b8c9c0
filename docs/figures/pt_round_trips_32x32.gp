set terminal svg size 900,440 dynamic font "sans,13"
set output "pt_round_trips_32x32.svg"
set title "Round trips of parallel tempering, 32 x 32 Ising torus at {/Symbol b} = 1"
set xlabel "replicas N + 1"
set ylabel "round trips per scan and chain"
set logscale x
set xtics (11, 21, 41, 81, 161)
set grid back lc rgb "#dddddd"
set key outside right center Left reverse
set xrange [9.35:185.15]
set yrange [0:*]
plot "pt_round_trips_32x32.dat" using 1:4 with lines dt 3 lw 2 lc rgb "#000000" title "limit 1 / (2 + 2{/Symbol L})", \
     "" using 1:2 with linespoints pt 7 lw 2.5 lc rgb "#1f77b4" title "non-reversible, measured", \
     "" using 1:3 with lines dt 2 lw 1.5 lc rgb "#1f77b4" title "non-reversible, predicted", \
     "" using 1:6 with linespoints pt 5 lw 2.5 lc rgb "#d62728" title "reversible, measured", \
     "" using 1:7 with lines dt 2 lw 1.5 lc rgb "#d62728" title "reversible, predicted"
