#!/bin/bash
# profile -> tune -> run with proxy_app on the held-out platform (96 ranks)
set -ex
cd "$(dirname "$0")/../../../../.."
PLAT=eth10g-ft-48x12
D=docs/results/tune/heldout2/cycle; mkdir -p $D
APP="build/smpi/bench/proxy_app --iters 20 --compute 200 --csv"
COLLX_STATS=$D/profile.json sim/run $PLAT 96 -- $APP > $D/profile-run.txt 2>&1
./run tune --platform $PLAT -n 96 --profile $D/profile.json --budget 120 --out $D/rules.json --report $D/tune > $D/tune.log 2>&1
./run tune validate --profile $D/profile.json --rules $D/rules.json --platform $PLAT -n 96 --out $D/val > $D/val.log 2>&1
APP="build/smpi/bench/proxy_app --iters 100 --compute 200 --csv"
sim/run $PLAT 96 -- $APP > $D/run-native.txt 2>&1
COLLX_RULES=$D/rules.json sim/run $PLAT 96 -- $APP > $D/run-tuned.txt 2>&1
grep proxy_app: $D/run-native.txt $D/run-tuned.txt
