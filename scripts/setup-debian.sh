#!/usr/bin/env bash
# Installs the Debian packages the tests need: wabt (wasm-validate, wasm-objdump, wasm2c
# and its runtime), chromium (the setup page in a real browser), the RV32 cross compiler
# with picolibc and qemu (the tickretry loop on a 32-bit RISC-V core), the Xtensa LX106
# cross compiler with picolibc (the same on the ESP8266's Xtensa core, under qemu too),
# valgrind (tests and bench), libsodium-dev and libmbedtls-dev (the firmware's module
# signature check and device password, built and run by test/boards/page-native.test.ts),
# mosquitto (the MQTT tests and chaos run start their own broker on loopback); mosquitto-clients
# for the mosquitto_sub the docs use to watch it.
set -euo pipefail
packages=(wabt chromium gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc valgrind
  gcc-xtensa-lx106 binutils-xtensa-lx106 picolibc-xtensa-lx106-elf libsodium-dev libmbedtls-dev mosquitto mosquitto-clients)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-debian: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup-debian: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# Through env, so that the variable reaches apt-get under sudo too (sudo drops the caller's).
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-debian: done"
