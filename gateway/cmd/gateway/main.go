// Command gateway is the public entry point in the distributed mode.
package main

import (
	"marketplace/gateway"
	"marketplace/libs/program"
)

func main() { program.Main("gateway", gateway.Run) }
