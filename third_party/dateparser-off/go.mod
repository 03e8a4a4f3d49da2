module github.com/markusmobius/go-dateparser

go 1.22
