#!/usr/bin/env bash
# Runs headscope under Xvfb on a known playground model, saves a screenshot and the
# heatmap's layout, then checks them against core's exporter (gui_check screenshot).
#   run_screenshot_test.sh APP CHECKER OUTDIR [zh|llama]
# llama: a playground decoder with the Llama options (RoPE, RMSNorm, SwiGLU, 2 K/V heads).
set -euo pipefail
app=$1 checker=$2 out=$3 lang=${4:-en}
mkdir -p "$out"
model="random:d_model=64,heads=4,layers=2,seed=7"
text="The animal didn't cross the street because it was too tired ."
[[ $lang == zh ]] && text="我是秦始皇，秦始皇统一了六国。"
[[ $lang == llama ]] && model="random:arch=decoder,d_model=64,heads=4,kv_heads=2,layers=2,pe=rope,norm=rmsnorm,act=swiglu,bias=0,lm_head=tied,seed=7"
layer=1 head=2
rm -f "$out/shot.png" "$out/layout.json"
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings --model "$model" --text "$text" \
  --layer $layer --head $head --size 1400x900 --screenshot "$out/shot.png" --layout "$out/layout.json" --frames 3
"$checker" screenshot "$out/shot.png" "$out/layout.json" "$model" "$text" $layer $head 1400 900
