module marketplace/web

go 1.26.7

// The console's npm packages (web/console/node_modules, installed by its
// tests) are no Go code.
ignore ./console/node_modules

require (
	github.com/gofiber/fiber/v2 v2.52.15
	marketplace/libs v0.0.0
)

replace marketplace/libs => ../libs
