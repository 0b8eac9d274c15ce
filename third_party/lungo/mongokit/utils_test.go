package mongokit

import (
	"fmt"
	"os"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

const testDB = "test-lungo-mongokit"

// testMongoURIVar names the environment variable that points the tests at a
// real MongoDB server (e.g. mongodb://localhost). Without it only the "Lungo"
// subtests run and every "Mongo" subtest is skipped (fork change: upstream
// always connects to mongodb://localhost).
const testMongoURIVar = "LUNGO_TEST_MONGODB_URI"

// testMongoClient is nil unless LUNGO_TEST_MONGODB_URI is set.
var testMongoClient *mongo.Client

var testCollCounter = 0

func init() {
	if uri := os.Getenv(testMongoURIVar); uri != "" {
		mongoClient, err := mongo.Connect(nil, options.Client().ApplyURI(uri))
		if err != nil {
			panic(err)
		}

		err = mongoClient.Database(testDB).Drop(nil)
		if err != nil {
			panic(err)
		}

		testMongoClient = mongoClient
	}
}

// testCollection returns a fresh collection on the MongoDB server, or skips
// the (sub)test when none is configured.
func testCollection(t *testing.T) *mongo.Collection {
	t.Helper()
	if testMongoClient == nil {
		t.Skip("no MongoDB server: set " + testMongoURIVar + " to run this side")
	}
	testCollCounter++
	name := fmt.Sprintf("n-%d", testCollCounter)
	return testMongoClient.Database(testDB).Collection(name)
}

func convertArray(array []interface{}) bson.A {
	a := make(bson.A, 0, len(array))
	for _, item := range array {
		if arr, ok := item.([]interface{}); ok {
			item = convertArray(arr)
		}

		a = append(a, item)
	}
	return a
}
