#!/bin/sh
# Build the in-guest test programs (none yet).
exit 0
