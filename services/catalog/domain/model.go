// Package domain holds the catalog's records and their rules: names unique
// whatever their case and spacing, versioned places, a store's fields and
// who may change them (its owner, or an administrator handing it over),
// the cap of products per store, the search by distance and the search
// radii of the configuration in force. No storage, no transport: time and
// ids are parameters.
package domain

import (
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// NameKey makes names unique regardless of case and spacing.
func NameKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// NotFound is the answer about a record (what: city, area, category, store,
// product) that does not exist.
func NotFound(what, id string) error {
	return apperr.New(apperr.NotFound, "%s %s does not exist", what, id)
}

// City is a reference city (Dubai, Abu Dhabi, ...).
type City struct {
	ID           string `bson:"_id" json:"_id"`
	Name         string `bson:"name" json:"name"`
	NameArabic   string `bson:"nameArabic" json:"nameArabic"`
	NameKey      string `bson:"nameKey" json:"-"`
	CreationTime int64  `bson:"creationTime" json:"_creationTime"`
	Version      int64  `bson:"version" json:"-"` // 1 at creation, +1 per change
}

// NewCity is a new city, version 1.
func NewCity(id, name, nameArabic string, now int64) City {
	name = strings.TrimSpace(name)
	return City{ID: id, Name: name, NameArabic: strings.TrimSpace(nameArabic), NameKey: NameKey(name), CreationTime: now, Version: 1}
}

// Rename changes the names given; every change is a new version.
func (c *City) Rename(name, nameArabic *string) {
	if name != nil {
		c.Name, c.NameKey = strings.TrimSpace(*name), NameKey(*name)
	}
	if nameArabic != nil {
		c.NameArabic = strings.TrimSpace(*nameArabic)
	}
	c.Version++
}

// Area is a delivery area inside a city.
type Area struct {
	ID           string `bson:"_id" json:"_id"`
	Name         string `bson:"name" json:"name"`
	City         string `bson:"city" json:"city"`
	NameKey      string `bson:"nameKey" json:"-"`
	CreationTime int64  `bson:"creationTime" json:"_creationTime"`
	Version      int64  `bson:"version" json:"-"` // 1 at creation, +1 per change
}

// NewArea is a new area of city, version 1.
func NewArea(id, name, city string, now int64) Area {
	name = strings.TrimSpace(name)
	return Area{ID: id, Name: name, City: city, NameKey: NameKey(name), CreationTime: now, Version: 1}
}

// Rename renames the area (it stays in its city); a new version.
func (a *Area) Rename(name string) {
	a.Name, a.NameKey = strings.TrimSpace(name), NameKey(name)
	a.Version++
}

// InCity refuses an area that does not lie in city.
func (a *Area) InCity(city string) error {
	if a.City != city {
		return apperr.Invalid("area", "area %s is not in city %s", a.ID, city)
	}
	return nil
}

// Category is a store category; the commission rules key on it.
type Category struct {
	ID           string `bson:"_id" json:"_id"`
	Name         string `bson:"name" json:"name"`
	NameArabic   string `bson:"nameArabic" json:"nameArabic"`
	NameKey      string `bson:"nameKey" json:"-"`
	CreationTime int64  `bson:"creationTime" json:"_creationTime"`
}

// NewCategory is a new category (nameArabic optional).
func NewCategory(id, name string, nameArabic *string, now int64) Category {
	name = strings.TrimSpace(name)
	c := Category{ID: id, Name: name, NameKey: NameKey(name), CreationTime: now}
	if nameArabic != nil {
		c.NameArabic = strings.TrimSpace(*nameArabic)
	}
	return c
}

// Product is something a store sells. Prices are fils inside, AED outside.
type Product struct {
	ID           string     `bson:"_id"`
	StoreID      string     `bson:"storeId"`
	Name         string     `bson:"name"`
	Price        money.Fils `bson:"price"`
	IsAvailable  bool       `bson:"isAvailable"`
	CreationTime int64      `bson:"creationTime"`
}
