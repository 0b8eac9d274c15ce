module marketplace/services/catalog

go 1.26.7

require marketplace/libs v0.0.0

replace marketplace/libs => ../../libs
