module marketplace/tools/shape

go 1.26
