package mongokit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/256dpi/lungo/bsonkit"
)

func applyTest(t *testing.T, upsert bool, doc bson.M, fn func(fn func(bson.M, []bson.M, interface{}))) {
	t.Run("Mongo", func(t *testing.T) {
		coll := testCollection(t)

		fn(func(update bson.M, arrayFilters []bson.M, result interface{}) {
			var query bson.M
			if !upsert {
				res, err := coll.InsertOne(nil, doc)
				assert.NoError(t, err)
				query = bson.M{
					"_id": res.InsertedID,
				}
			}

			opts := options.Update().SetUpsert(upsert)

			if arrayFilters != nil {
				list := make([]interface{}, 0, len(arrayFilters))
				for _, af := range arrayFilters {
					list = append(list, af)
				}

				opts.SetArrayFilters(options.ArrayFilters{Filters: list})
			}

			res, err := coll.UpdateOne(nil, query, update, opts)
			if _, ok := result.(string); ok {
				assert.Error(t, err, update)
				assert.Nil(t, res, update)
				return
			}

			assert.NoError(t, err)

			if upsert {
				query = bson.M{
					"_id": res.UpsertedID,
				}
			}

			var m bson.M
			err = coll.FindOne(nil, query).Decode(&m)
			assert.NoError(t, err)

			d := bsonkit.MustConvert(m)
			bsonkit.Unset(d, "_id")

			if cb, ok := result.(func(*testing.T, bson.D)); ok {
				cb(t, *d)
				return
			}

			assert.Equal(t, result, d, update)
		})
	})

	t.Run("Lungo", func(t *testing.T) {
		fn(func(update bson.M, arrayFilters []bson.M, result interface{}) {
			d := bsonkit.MustConvert(doc)
			l := bsonkit.MustConvertList(arrayFilters)
			_, err := Apply(d, nil, bsonkit.MustConvert(update), upsert, l)
			if str, ok := result.(string); ok {
				assert.Error(t, err)
				if err != nil {
					assert.Equal(t, str, err.Error())
				}
				return
			}

			assert.NoError(t, err)

			if cb, ok := result.(func(*testing.T, bson.D)); ok {
				cb(t, *d)
				return
			}

			assert.Equal(t, result, d, update)
		})
	})
}

func TestApply(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// empty update
		fn(bson.M{}, nil, "empty update document")

		// not an operator
		fn(bson.M{
			"foo": "bar",
		}, nil, `missing default operator`)

		// unknown operator
		fn(bson.M{
			"$foo": "bar",
		}, nil, `unknown top level operator "$foo"`)

		// missing document
		fn(bson.M{
			"$set": "bar",
		}, nil, "$set: expected document")

		// empty document
		fn(bson.M{
			"$set": bson.M{},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "bar",
		}))

		// valid update
		fn(bson.M{
			"$set": bson.M{
				"foo": "baz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "baz",
		}))
	})
}

func TestApplyConflicts(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// conflicting paths (same)
		fn(bson.M{
			"$set": bson.M{
				"foo": 2,
			},
			"$unset": bson.M{
				"foo": nil,
			},
		}, nil, `conflicting key "foo"`)

		// conflicting paths (sub)
		fn(bson.M{
			"$set": bson.M{
				"foo":     bson.M{},
				"foo.bar": bson.M{},
			},
		}, nil, `conflicting key "foo.bar"`)

		// conflicting paths (sub) reverse
		fn(bson.M{
			"$set": bson.D{
				{Key: "foo.bar", Value: bson.M{}},
				{Key: "foo", Value: bson.M{}},
			},
		}, nil, `conflicting key "foo"`)

		// co-existing paths
		fn(bson.M{
			"$set": bson.M{
				"foo.bar": bson.M{},
				"foo.baz": bson.M{},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": bson.M{},
				"baz": bson.M{},
			},
		}))
	})

	applyTest(t, false, bson.M{
		"foo": bson.A{},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// conflicting array paths (same)
		fn(bson.M{
			"$set": bson.M{
				"foo.0": 2,
			},
			"$unset": bson.M{
				"foo.0": nil,
			},
		}, nil, `conflicting key "foo.0"`)

		// conflicting array paths (sub)
		fn(bson.M{
			"$set": bson.M{
				"foo":   bson.M{},
				"foo.1": bson.M{},
			},
		}, nil, `conflicting key "foo.1"`)

		// conflicting array paths (sub) reverse
		fn(bson.M{
			"$set": bson.D{
				{Key: "foo.1", Value: bson.M{}},
				{Key: "foo", Value: bson.M{}},
			},
		}, nil, `conflicting key "foo"`)

		// co-existing array paths
		fn(bson.M{
			"$set": bson.M{
				"foo.1": bson.M{},
				"foo.2": bson.M{},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{
				nil,
				bson.M{},
				bson.M{},
			},
		}))
	})

	applyTest(t, false, bson.M{
		"foo": bson.M{},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// conflicting index paths (same)
		fn(bson.M{
			"$set": bson.M{
				"foo.0": 2,
			},
			"$unset": bson.M{
				"foo.0": nil,
			},
		}, nil, `conflicting key "foo.0"`)

		// conflicting index paths (sub)
		fn(bson.M{
			"$set": bson.M{
				"foo":   bson.M{},
				"foo.1": bson.M{},
			},
		}, nil, `conflicting key "foo.1"`)

		// conflicting index paths (sub) reverse
		fn(bson.M{
			"$set": bson.D{
				{Key: "foo.1", Value: bson.M{}},
				{Key: "foo", Value: bson.M{}},
			},
		}, nil, `conflicting key "foo"`)

		// co-existing index paths
		fn(bson.M{
			"$set": bson.M{
				"foo.1": bson.M{},
				"foo.2": bson.M{},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"1": bson.M{},
				"2": bson.M{},
			},
		}))
	})
}

func TestApplyPositionalOperators(t *testing.T) {
	// single positional operator
	applyTest(t, false, bson.M{
		"foo": bson.A{
			"bar",
			"baz",
			"foo",
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$set": bson.M{
				"foo.$[foo]": "baz",
			},
		}, []bson.M{
			{"foo": "foo"},
		}, bsonkit.MustConvert(bson.M{
			"foo": bson.A{
				"bar",
				"baz",
				"baz",
			},
		}))
	})

	// multiple adjacent positional operators
	applyTest(t, false, bson.M{
		"foo": bson.A{
			bson.A{"x", "y", "z"},
			bson.A{"v", "w"},
			bson.A{"i", "j", "k"},
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$set": bson.M{
				"foo.$[].$[]": "baz",
			},
		}, []bson.M{}, bsonkit.MustConvert(bson.M{
			"foo": bson.A{
				bson.A{"baz", "baz", "baz"},
				bson.A{"baz", "baz"},
				bson.A{"baz", "baz", "baz"},
			},
		}))
	})

	// multiple nested positional operators
	applyTest(t, false, bson.M{
		"foo": bson.A{
			bson.M{
				"val":  int32(10),
				"ints": bson.A{int32(-1), int32(2), int32(-3), int32(4)},
			},
			bson.M{
				"val":  int32(20),
				"ints": bson.A{int32(10), int32(-20), int32(30), int32(-40)},
			},
			bson.M{
				"val":  int32(30),
				"ints": bson.A{int32(-100), int32(200), int32(-300), int32(400)},
			},
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$set": bson.M{
				"foo.$[gt15].ints.$[neg]": int32(0),
			},
		}, []bson.M{
			{"gt15.val": bson.M{
				"$gt": 15,
			}},
			{"neg": bson.M{
				"$lt": 0,
			}},
		}, bsonkit.MustConvert(bson.M{
			"foo": bson.A{
				bson.M{
					"val":  int32(10),
					"ints": bson.A{int32(-1), int32(2), int32(-3), int32(4)},
				},
				bson.M{
					"val":  int32(20),
					"ints": bson.A{int32(10), int32(0), int32(30), int32(0)},
				},
				bson.M{
					"val":  int32(30),
					"ints": bson.A{int32(0), int32(200), int32(0), int32(400)},
				},
			},
		}))
	})
}

func TestApplySet(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// replace value
		fn(bson.M{
			"$set": bson.M{
				"foo": "baz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "baz",
		}))

		// add value
		fn(bson.M{
			"$set": bson.M{
				"quz": bson.M{
					"qux": int32(42),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "bar",
			"quz": bson.M{
				"qux": int32(42),
			},
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": "bar",
	}), nil, bsonkit.MustConvert(bson.M{
		"$set": bson.M{
			"foo": "baz",
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo": "baz",
		},
	}, changes)
}

func TestApplySetOnInsert(t *testing.T) {
	// update
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// replace value
		fn(bson.M{
			"$setOnInsert": bson.M{
				"foo": "baz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "bar",
		}))

		// add value
		fn(bson.M{
			"$setOnInsert": bson.M{
				"quz": bson.M{
					"qux": int32(42),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "bar",
		}))
	})

	// upsert
	applyTest(t, true, nil, func(fn func(bson.M, []bson.M, interface{})) {
		// replace value
		fn(bson.M{
			"$setOnInsert": bson.M{
				"foo": "baz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "baz",
		}))
	})

	// upsert nested
	applyTest(t, true, nil, func(fn func(bson.M, []bson.M, interface{})) {
		// add value
		fn(bson.M{
			"$setOnInsert": bson.M{
				"quz": bson.M{
					"qux": int32(42),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"quz": bson.M{
				"qux": int32(42),
			},
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": "bar",
	}), nil, bsonkit.MustConvert(bson.M{
		"$setOnInsert": bson.M{
			"foo": "baz",
		},
	}), true, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Upsert: true,
		Changed: map[string]interface{}{
			"foo": "baz",
		},
	}, changes)
}

func TestApplyUnset(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": "baz",
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// unset nested value
		fn(bson.M{
			"$unset": bson.M{
				"foo.bar": nil,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{},
		}))

		// unset value
		fn(bson.M{
			"$unset": bson.M{
				"foo": nil,
			},
		}, nil, bsonkit.NewDoc())
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.M{
			"bar": "baz",
		},
	}), nil, bsonkit.MustConvert(bson.M{
		"$unset": bson.M{
			"foo.bar": nil,
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo.bar": bsonkit.Missing,
		},
	}, changes)
}

func TestApplyRename(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": "baz",
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// rename nested value
		fn(bson.M{
			"$rename": bson.M{
				"foo.bar": "foo.baz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"baz": "baz",
			},
		}))

		// rename value
		fn(bson.M{
			"$rename": bson.M{
				"foo": "bar",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"bar": bson.M{
				"bar": "baz",
			},
		}))

		// rename missing
		fn(bson.M{
			"$rename": bson.M{
				"baz": "quz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": "baz",
			},
		}))
	})

	// array paths
	applyTest(t, false, bson.M{
		"foo": bson.A{
			bson.M{"bar": "baz"},
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$rename": bson.M{
				"foo.0.bar": "foo.0.baz",
			},
		}, nil, "$rename: path cannot be an array")
	})

	// source equals destination
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$rename": bson.M{
				"foo": "foo",
			},
		}, nil, "$rename: source and target must differ")
	})

	// source is a dotted-path prefix of target
	applyTest(t, false, bson.M{
		"foo": bson.M{},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$rename": bson.M{
				"foo": "foo.bar",
			},
		}, nil, "$rename: source and target paths cannot overlap")
	})

	// target is a dotted-path prefix of source
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": "baz",
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$rename": bson.M{
				"foo.bar": "foo",
			},
		}, nil, "$rename: source and target paths cannot overlap")
	})

	// non-overlapping siblings under the same parent must still succeed
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": "baz",
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$rename": bson.M{
				"foo.bar": "foo.qux",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"qux": "baz",
			},
		}))
	})

	// shared-prefix-but-different-field names must not be rejected (e.g.
	// "ab" is not a dotted-path prefix of "a"); the prefix check is
	// dotted-path-aware
	applyTest(t, false, bson.M{
		"ab": "x",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$rename": bson.M{
				"ab": "a",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"a": "x",
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.M{
			"bar": "baz",
		},
	}), nil, bsonkit.MustConvert(bson.M{
		"$rename": bson.M{
			"foo.bar": "foo.baz",
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo.bar": bsonkit.Missing,
			"foo.baz": "baz",
		},
	}, changes)

	// when the destination Put fails the document must be left unchanged
	// (atomicity): renaming "a" into "b.c" where "b" is a scalar must not
	// remove "a"
	doc := bsonkit.MustConvert(bson.M{
		"a": int32(1),
		"b": int32(2),
	})
	_, err = Apply(doc, nil, bsonkit.MustConvert(bson.M{
		"$rename": bson.M{
			"a": "b.c",
		},
	}), false, nil)
	assert.Error(t, err)
	assert.Equal(t, bsonkit.MustConvert(bson.M{
		"a": int32(1),
		"b": int32(2),
	}), doc)
}

func TestApplyInc(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": int32(42),
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// increment nested value
		fn(bson.M{
			"$inc": bson.M{
				"foo.bar": int64(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 44,
			},
		}))

		// increment missing value
		fn(bson.M{
			"$inc": bson.M{
				"foo.baz": int32(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": int32(42),
				"baz": int32(2),
			},
		}))

		// increment with different type
		fn(bson.M{
			"$inc": bson.M{
				"foo.bar": 1.5,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 43.5,
			},
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.M{
			"bar": 42,
		},
	}), nil, bsonkit.MustConvert(bson.M{
		"$inc": bson.M{
			"foo.bar": 2,
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo.bar": int64(44),
		},
	}, changes)
}

func TestApplyMul(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": int32(42),
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// multiply nested value
		fn(bson.M{
			"$mul": bson.M{
				"foo.bar": int64(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 84,
			},
		}))

		// multiply missing value
		fn(bson.M{
			"$mul": bson.M{
				"foo.baz": int32(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": int32(42),
				"baz": int32(0),
			},
		}))

		// multiply with different type
		fn(bson.M{
			"$mul": bson.M{
				"foo.bar": 1.5,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 63.0,
			},
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.M{
			"bar": int32(42),
		},
	}), nil, bsonkit.MustConvert(bson.M{
		"$mul": bson.M{
			"foo.bar": 2,
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo.bar": int64(84),
		},
	}, changes)
}

func TestApplyMax(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": int64(42),
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// keep value
		fn(bson.M{
			"$max": bson.M{
				"foo.bar": int32(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 42,
			},
		}))

		// set value
		fn(bson.M{
			"$max": bson.M{
				"foo.bar": int32(44),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": int32(44),
			},
		}))

		// add value
		fn(bson.M{
			"$max": bson.M{
				"foo.baz": int32(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 42,
				"baz": int32(2),
			},
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.M{
			"bar": int32(42),
		},
	}), nil, bsonkit.MustConvert(bson.M{
		"$max": bson.M{
			"foo.bar": int32(44),
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo.bar": int32(44),
		},
	}, changes)
}

func TestApplyMin(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": bson.M{
			"bar": int64(42),
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// keep value
		fn(bson.M{
			"$min": bson.M{
				"foo.bar": int32(44),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 42,
			},
		}))

		// set value
		fn(bson.M{
			"$min": bson.M{
				"foo.bar": int32(21),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": int32(21),
			},
		}))

		// add value
		fn(bson.M{
			"$min": bson.M{
				"foo.baz": int32(2),
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.M{
				"bar": 42,
				"baz": int32(2),
			},
		}))
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.M{
			"bar": int32(42),
		},
	}), nil, bsonkit.MustConvert(bson.M{
		"$min": bson.M{
			"foo.bar": int32(21),
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo.bar": int32(21),
		},
	}, changes)
}

func TestApplyCurrentDate(t *testing.T) {
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		// missing document
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": "baz",
			},
		}, nil, "$currentDate: expected boolean or document")

		// invalid document
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": bson.M{
					"foo": "bar",
				},
			},
		}, nil, "$currentDate: expected document with a single $type field")

		// empty document
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": bson.M{},
			},
		}, nil, "$currentDate: expected document with a single $type field")

		// invalid type
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": bson.M{
					"$type": "foo",
				},
			},
		}, nil, "$currentDate: expected $type 'date' or 'timestamp'")

		// set date
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": true,
			},
		}, nil, func(t *testing.T, d bson.D) {
			assert.Len(t, d, 1)
			assert.Equal(t, "foo", d[0].Key)
			assert.IsType(t, primitive.DateTime(0), d[0].Value)
		})

		// set date using type
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": bson.M{
					"$type": "date",
				},
			},
		}, nil, func(t *testing.T, d bson.D) {
			assert.Len(t, d, 1)
			assert.Equal(t, "foo", d[0].Key)
			assert.IsType(t, primitive.DateTime(0), d[0].Value)
		})

		// set timestamp using type
		fn(bson.M{
			"$currentDate": bson.M{
				"foo": bson.M{
					"$type": "timestamp",
				},
			},
		}, nil, func(t *testing.T, d bson.D) {
			assert.Len(t, d, 1)
			assert.Equal(t, "foo", d[0].Key)
			assert.IsType(t, primitive.Timestamp{}, d[0].Value)
		})
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": "bar",
	}), nil, bsonkit.MustConvert(bson.M{
		"$currentDate": bson.M{
			"foo": true,
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.NotEmpty(t, changes.Changed["foo"])
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo": changes.Changed["foo"],
		},
	}, changes)

	// changes via $type form
	changes, err = Apply(bsonkit.MustConvert(bson.M{
		"foo": "bar",
	}), nil, bsonkit.MustConvert(bson.M{
		"$currentDate": bson.M{
			"foo": bson.M{"$type": "date"},
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.NotEmpty(t, changes.Changed["foo"])
	assert.Equal(t, &Changes{
		Changed: map[string]interface{}{
			"foo": changes.Changed["foo"],
		},
	}, changes)
}

func TestApplyPush(t *testing.T) {
	// create array
	applyTest(t, false, bson.M{}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": "bar",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"bar"},
		}))
	})

	// add element
	applyTest(t, false, bson.M{
		"foo": bson.A{"bar"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": "baz",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"bar", "baz"},
		}))
	})

	// non-array
	applyTest(t, false, bson.M{
		"str": "bar",
		"int": int32(42),
		"nil": nil,
		"obj": bson.D{},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"str": "baz",
				"int": "baz",
				"nil": "baz",
				"obj": "baz",
			},
		}, nil, `value at path "int" is not an array`)
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.A{"bar"},
	}), nil, bsonkit.MustConvert(bson.M{
		"$push": bson.M{
			"foo": "baz",
		},
	}), true, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Upsert: true,
		Changed: map[string]interface{}{
			"foo.1": "baz",
		},
	}, changes)
}

func TestApplyPushEach(t *testing.T) {
	// $each appends multiple values
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{"$each": bson.A{"b", "c", "d"}},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c", "d"},
		}))
	})

	// $each on a missing field creates a new array
	applyTest(t, false, bson.M{
		"x": int32(1),
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{"$each": bson.A{"a", "b"}},
			},
		}, nil, func(t *testing.T, d bson.D) {
			m := bson.M{}
			for _, e := range d {
				m[e.Key] = e.Value
			}
			assert.Equal(t, bson.M{"x": int32(1), "foo": bson.A{"a", "b"}}, m)
		})
	})

	// empty $each is a no-op (and no error)
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{"$each": bson.A{}},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a"},
		}))
	})

	// $each must be an array
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{"$each": "x"},
			},
		}, nil, "$push: $each requires an array")
	})

	// per-element change records for a pure $each append
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.A{"a"},
	}), nil, bsonkit.MustConvert(bson.M{
		"$push": bson.M{
			"foo": bson.M{"$each": bson.A{"b", "c"}},
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Upsert: false,
		Changed: map[string]interface{}{
			"foo.1": "b",
			"foo.2": "c",
		},
	}, changes)
}

func TestApplyPushPosition(t *testing.T) {
	// prepend
	applyTest(t, false, bson.M{
		"foo": bson.A{"b", "c"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":     bson.A{"a"},
					"$position": int32(0),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c"},
		}))
	})

	// insert in middle
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "d"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":     bson.A{"b", "c"},
					"$position": int32(1),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c", "d"},
		}))
	})

	// negative position counts from end
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b", "c", "d"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":     bson.A{"x"},
					"$position": int32(-1),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c", "x", "d"},
		}))
	})

	// position past end clamps to end
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":     bson.A{"c"},
					"$position": int32(100),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c"},
		}))
	})

	// negative position past start clamps to 0
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":     bson.A{"x"},
					"$position": int32(-100),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"x", "a", "b"},
		}))
	})
}

func TestApplyPushSlice(t *testing.T) {
	// positive slice keeps the first N
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":  bson.A{"c", "d"},
					"$slice": int32(3),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c"},
		}))
	})

	// negative slice keeps the last N (useful for ring buffers)
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b", "c"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":  bson.A{"d", "e"},
					"$slice": int32(-3),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"c", "d", "e"},
		}))
	})

	// $slice: 0 empties the array
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":  bson.A{"c"},
					"$slice": int32(0),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{},
		}))
	})

	// $slice larger than the resulting array is a no-op
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each":  bson.A{"b"},
					"$slice": int32(10),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b"},
		}))
	})
}

func TestApplyPushSort(t *testing.T) {
	// scalar ascending
	applyTest(t, false, bson.M{
		"foo": bson.A{int32(3), int32(1)},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each": bson.A{int32(2)},
					"$sort": int32(1),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{int32(1), int32(2), int32(3)},
		}))
	})

	// scalar descending
	applyTest(t, false, bson.M{
		"foo": bson.A{int32(3), int32(1)},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each": bson.A{int32(2)},
					"$sort": int32(-1),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{int32(3), int32(2), int32(1)},
		}))
	})

	// document sort by field
	applyTest(t, false, bson.M{
		"foo": bson.A{
			bson.M{"score": int32(2)},
			bson.M{"score": int32(5)},
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"foo": bson.M{
					"$each": bson.A{bson.M{"score": int32(1)}, bson.M{"score": int32(7)}},
					"$sort": bson.M{"score": int32(1)},
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{
				bson.D{{Key: "score", Value: int32(1)}},
				bson.D{{Key: "score", Value: int32(2)}},
				bson.D{{Key: "score", Value: int32(5)}},
				bson.D{{Key: "score", Value: int32(7)}},
			},
		}))
	})
}

func TestApplyPushCombined(t *testing.T) {
	// classic capped-list pattern: append, sort by score desc, keep top N
	applyTest(t, false, bson.M{
		"scores": bson.A{
			bson.M{"v": int32(50)},
			bson.M{"v": int32(80)},
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$push": bson.M{
				"scores": bson.M{
					"$each":  bson.A{bson.M{"v": int32(70)}, bson.M{"v": int32(90)}},
					"$sort":  bson.M{"v": int32(-1)},
					"$slice": int32(3),
				},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"scores": bson.A{
				bson.D{{Key: "v", Value: int32(90)}},
				bson.D{{Key: "v", Value: int32(80)}},
				bson.D{{Key: "v", Value: int32(70)}},
			},
		}))
	})
}

func TestApplyPop(t *testing.T) {
	// unsupported value
	applyTest(t, false, bson.M{
		"foo": bson.A{"bar", "baz"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pop": bson.M{
				"foo": 0,
			},
		}, nil, "$pop: expected 1 or -1")
	})

	// missing value
	applyTest(t, false, bson.M{
		"foo": bson.A{"bar", "baz"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pop": bson.M{
				"bar": -1,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"bar", "baz"},
		}))
	})

	// remove first element
	applyTest(t, false, bson.M{
		"foo": bson.A{"bar", "baz"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pop": bson.M{
				"foo": -1,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"baz"},
		}))
	})

	// remove last value
	applyTest(t, false, bson.M{
		"foo": bson.A{"bar", "baz"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pop": bson.M{
				"foo": 1,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"bar"},
		}))
	})

	// empty array
	applyTest(t, false, bson.M{
		"foo": bson.A{},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pop": bson.M{
				"foo": 1,
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{},
		}))
	})

	// non-array
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pop": bson.M{
				"foo": 1,
			},
		}, nil, `value at path "foo" is not an array`)
	})

	// changes
	changes, err := Apply(bsonkit.MustConvert(bson.M{
		"foo": bson.A{"bar", "baz"},
	}), nil, bsonkit.MustConvert(bson.M{
		"$pop": bson.M{
			"foo": 1,
		},
	}), false, nil)
	assert.NoError(t, err)
	assert.Equal(t, &Changes{
		Upsert: false,
		Changed: map[string]interface{}{
			"foo": bson.A{"bar"},
		},
	}, changes)
}

func TestApplyPull(t *testing.T) {
	// missing field is a no-op
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pull": bson.M{
				"missing": "x",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": "bar",
		}))
	})

	// non-array target
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pull": bson.M{
				"foo": "x",
			},
		}, nil, "$pull: target field must be an array")
	})

	// scalar equality
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b", "c", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pull": bson.M{
				"foo": "b",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "c"},
		}))
	})

	// expression
	applyTest(t, false, bson.M{
		"foo": bson.A{int32(1), int32(2), int32(3), int32(4)},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pull": bson.M{
				"foo": bson.M{"$gte": 3},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{int32(1), int32(2)},
		}))
	})

	// subdocument query
	applyTest(t, false, bson.M{
		"foo": bson.A{
			bson.M{"k": "a"},
			bson.M{"k": "b"},
			bson.M{"k": "a"},
		},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pull": bson.M{
				"foo": bson.M{"k": "a"},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{bson.M{"k": "b"}},
		}))
	})

	// no match leaves the array alone
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pull": bson.M{
				"foo": "z",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b"},
		}))
	})
}

func TestApplyPullAll(t *testing.T) {
	// non-array argument
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pullAll": bson.M{
				"foo": "x",
			},
		}, nil, "$pullAll: expected array")
	})

	// removes all matching values
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b", "c", "a", "d"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$pullAll": bson.M{
				"foo": bson.A{"a", "c"},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"b", "d"},
		}))
	})
}

func TestApplyAddToSet(t *testing.T) {
	// adds when not present, no-op when present
	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$addToSet": bson.M{
				"foo": "c",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c"},
		}))
	})

	applyTest(t, false, bson.M{
		"foo": bson.A{"a", "b"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$addToSet": bson.M{
				"foo": "a",
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b"},
		}))
	})

	// $each form, mixing already-present and new
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$addToSet": bson.M{
				"foo": bson.M{"$each": bson.A{"a", "b", "c", "b"}},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": bson.A{"a", "b", "c"},
		}))
	})

	// missing field becomes a new array (use a callback so we don't depend on
	// bson.M map iteration order in the round-tripped Mongo result)
	applyTest(t, false, bson.M{
		"x": int32(1),
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$addToSet": bson.M{
				"foo": "a",
			},
		}, nil, func(t *testing.T, d bson.D) {
			m := bson.M{}
			for _, e := range d {
				m[e.Key] = e.Value
			}
			assert.Equal(t, bson.M{"x": int32(1), "foo": bson.A{"a"}}, m)
		})
	})

	// $each combined with an unknown modifier must be rejected
	applyTest(t, false, bson.M{
		"foo": bson.A{"a"},
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$addToSet": bson.M{
				"foo": bson.D{
					{Key: "$each", Value: bson.A{"b"}},
					{Key: "$position", Value: int32(0)},
				},
			},
		}, nil, "$addToSet: unknown modifier \"$position\"")
	})
}

func TestApplyBit(t *testing.T) {
	// and
	applyTest(t, false, bson.M{
		"foo": int32(13),
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$bit": bson.M{
				"foo": bson.M{"and": int32(10)},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": int32(8),
		}))
	})

	// or
	applyTest(t, false, bson.M{
		"foo": int32(1),
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$bit": bson.M{
				"foo": bson.M{"or": int32(2)},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": int32(3),
		}))
	})

	// xor
	applyTest(t, false, bson.M{
		"foo": int32(5),
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$bit": bson.M{
				"foo": bson.M{"xor": int32(3)},
			},
		}, nil, bsonkit.MustConvert(bson.M{
			"foo": int32(6),
		}))
	})

	// non-integer field rejected
	applyTest(t, false, bson.M{
		"foo": "bar",
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$bit": bson.M{
				"foo": bson.M{"and": int32(1)},
			},
		}, nil, "$bit: target field must be integer")
	})

	// non-integer operand rejected
	applyTest(t, false, bson.M{
		"foo": int32(1),
	}, func(fn func(bson.M, []bson.M, interface{})) {
		fn(bson.M{
			"$bit": bson.M{
				"foo": bson.M{"and": "x"},
			},
		}, nil, "$bit: operand must be integer")
	})
}
