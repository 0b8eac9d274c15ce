module marketplace/deploy

go 1.26.7

require (
	marketplace/gateway v0.0.0
	marketplace/libs v0.0.0
	marketplace/services/catalog v0.0.0
	marketplace/services/platformconfig v0.0.0
)

replace (
	marketplace/gateway => ../gateway
	marketplace/libs => ../libs
	marketplace/services/catalog => ../services/catalog
	marketplace/services/platformconfig => ../services/platformconfig
)
