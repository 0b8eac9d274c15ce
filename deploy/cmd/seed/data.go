package main

// The demo world's fixed material: real UAE cities and areas with their
// Arabic names and the coordinates of their centres, the store categories,
// what each kind of store sells at what prices, names of people, and the
// texts of reviews. The plan (plan.go) draws from these with the seed's
// random source; nothing here is random.

type areaData struct {
	Name, Arabic string
	Lat, Lng     float64 // the area's centre, decimal degrees
}

type cityData struct {
	Name, Arabic string
	Weight       float64 // share of stores and customers
	Areas        []areaData
}

// cities: the three largest emirates' cities and well-known areas of each.
// The platform contract gives an area a name only (createArea: name, city),
// so the areas' Arabic names are kept here for reference and not sent.
var cities = []cityData{
	{Name: "Dubai", Arabic: "دبي", Weight: 0.6, Areas: []areaData{
		{"Dubai Marina", "دبي مارينا", 25.0805, 55.1403},
		{"Downtown Dubai", "وسط مدينة دبي", 25.1972, 55.2744},
		{"Jumeirah", "جميرا", 25.2090, 55.2460},
		{"Deira", "ديرة", 25.2711, 55.3075},
		{"Al Barsha", "البرشاء", 25.1135, 55.1968},
		{"Business Bay", "الخليج التجاري", 25.1850, 55.2650},
		{"Jumeirah Lake Towers", "أبراج بحيرات جميرا", 25.0693, 55.1413},
		{"Bur Dubai", "بر دبي", 25.2532, 55.2972},
		{"Al Quoz", "القوز", 25.1372, 55.2286},
		{"Mirdif", "مردف", 25.2193, 55.4199},
		{"Palm Jumeirah", "نخلة جميرا", 25.1124, 55.1390},
		{"Jumeirah Village Circle", "قرية جميرا الدائرية", 25.0600, 55.2090},
		{"Dubai Silicon Oasis", "واحة دبي للسيليكون", 25.1190, 55.3890},
		{"Al Karama", "الكرامة", 25.2450, 55.3030},
	}},
	{Name: "Abu Dhabi", Arabic: "أبوظبي", Weight: 0.25, Areas: []areaData{
		{"Al Reem Island", "جزيرة الريم", 24.4990, 54.4060},
		{"Khalifa City", "مدينة خليفة", 24.4200, 54.5770},
		{"Al Khalidiyah", "الخالدية", 24.4700, 54.3500},
		{"Al Markaziyah", "المركزية", 24.4925, 54.3620},
		{"Yas Island", "جزيرة ياس", 24.4880, 54.6070},
		{"Saadiyat Island", "جزيرة السعديات", 24.5400, 54.4330},
		{"Al Mushrif", "المشرف", 24.4470, 54.3900},
		{"Mohammed Bin Zayed City", "مدينة محمد بن زايد", 24.3390, 54.5420},
		{"Al Raha Beach", "شاطئ الراحة", 24.4480, 54.6100},
	}},
	{Name: "Sharjah", Arabic: "الشارقة", Weight: 0.15, Areas: []areaData{
		{"Al Majaz", "المجاز", 25.3270, 55.3880},
		{"Al Nahda", "النهدة", 25.3000, 55.3720},
		{"Muwaileh", "مويلح", 25.3040, 55.4560},
		{"Al Khan", "الخان", 25.3300, 55.3720},
		{"Al Qasimia", "القاسمية", 25.3470, 55.3960},
		{"Al Taawun", "التعاون", 25.3150, 55.3740},
		{"Abu Shagara", "أبو شغارة", 25.3340, 55.3920},
	}},
}

type productData struct {
	Name     string
	Min, Max fils // price range
}

type categoryData struct {
	Name, Arabic string
	// Commission is the category's commission rate set on the platform
	// configuration; 0 leaves the configuration's own entry (Food,
	// Groceries and Electronics have theirs from createInitialPlatformConfig).
	Commission float64
	Weight     float64 // share of stores
	StoreNames []string
	Products   []productData
}

func aed(whole, cents int64) fils { return fils(whole*100 + cents) }

var categories = []categoryData{
	{Name: "Food", Arabic: "مأكولات", Weight: 0.3,
		StoreNames: []string{"Shawarma Station", "Saffron Grill", "Bait Al Mandi", "Levant Kitchen", "Spice Route", "Karak & Co", "Biryani House", "Falafel Corner", "Burger Yard", "Pizza Forno", "Manousheh Bakehouse", "Tikka Junction"},
		Products: []productData{
			{"Chicken Shawarma Wrap", aed(14, 0), aed(22, 0)}, {"Mixed Grill Platter", aed(55, 0), aed(85, 0)}, {"Hummus", aed(12, 0), aed(18, 0)},
			{"Falafel Sandwich", aed(8, 0), aed(12, 0)}, {"Lamb Mandi", aed(45, 0), aed(60, 0)}, {"Chicken Biryani", aed(28, 0), aed(38, 0)},
			{"Fattoush Salad", aed(18, 0), aed(26, 0)}, {"Mutabbal", aed(14, 0), aed(20, 0)}, {"Kunafa", aed(16, 0), aed(25, 0)},
			{"Fresh Orange Juice", aed(12, 0), aed(16, 0)}, {"Margherita Pizza", aed(35, 0), aed(48, 0)}, {"Beef Burger", aed(32, 0), aed(45, 0)},
			{"Karak Tea", aed(3, 0), aed(5, 0)}, {"Chicken Tikka", aed(30, 0), aed(42, 0)}, {"Lentil Soup", aed(12, 0), aed(16, 0)},
		}},
	{Name: "Groceries", Arabic: "بقالة", Weight: 0.22,
		StoreNames: []string{"Fresh Basket", "Al Madina Market", "Green Valley Grocery", "Daily Needs", "Oasis Supermarket", "Corner Mart", "Desert Farm Store"},
		Products: []productData{
			{"Full Cream Milk 1L", aed(6, 0), aed(8, 0)}, {"Laban 1L", aed(5, 0), aed(7, 0)}, {"Basmati Rice 5kg", aed(35, 0), aed(55, 0)},
			{"Free-Range Eggs (30)", aed(25, 0), aed(35, 0)}, {"Arabic Bread (6 pcs)", aed(2, 0), aed(4, 0)}, {"Medjool Dates 1kg", aed(45, 0), aed(80, 0)},
			{"Olive Oil 1L", aed(30, 0), aed(45, 0)}, {"Bananas 1kg", aed(6, 0), aed(9, 0)}, {"Tomatoes 1kg", aed(5, 0), aed(8, 0)},
			{"Chicken Breast 1kg", aed(28, 0), aed(38, 0)}, {"Mineral Water 12x500ml", aed(10, 0), aed(15, 0)}, {"Halloumi 250g", aed(14, 0), aed(20, 0)},
			{"Ground Coffee 250g", aed(25, 0), aed(40, 0)}, {"Greek Yoghurt 500g", aed(12, 0), aed(18, 0)}, {"Avocados (4)", aed(14, 0), aed(22, 0)},
		}},
	{Name: "Electronics", Arabic: "إلكترونيات", Weight: 0.1,
		StoreNames: []string{"Gadget Hub", "Circuit Point", "Techno Souq", "Volt Electronics"},
		Products: []productData{
			{"USB-C Charger 30W", aed(69, 0), aed(119, 0)}, {"Wireless Earbuds", aed(149, 0), aed(399, 0)}, {"Power Bank 20000mAh", aed(99, 0), aed(179, 0)},
			{"Phone Case", aed(39, 0), aed(89, 0)}, {"HDMI Cable 2m", aed(29, 0), aed(49, 0)}, {"Bluetooth Speaker", aed(179, 0), aed(449, 0)},
			{"Smart Watch", aed(399, 0), aed(1299, 0)}, {"Laptop Stand", aed(89, 0), aed(159, 0)}, {"Screen Protector", aed(29, 0), aed(59, 0)},
			{"Wireless Mouse", aed(59, 0), aed(129, 0)},
		}},
	{Name: "Bakery & Desserts", Arabic: "مخبوزات وحلويات", Commission: 0.05, Weight: 0.1,
		StoreNames: []string{"Golden Crust Bakery", "Sugar & Saffron", "Luqaimat Lane", "The Date Tree Patisserie"},
		Products: []productData{
			{"Butter Croissant", aed(8, 0), aed(12, 0)}, {"Sourdough Loaf", aed(22, 0), aed(30, 0)}, {"Date Cake", aed(35, 0), aed(60, 0)},
			{"Luqaimat (12 pcs)", aed(18, 0), aed(28, 0)}, {"Cheese Manakeesh", aed(10, 0), aed(16, 0)}, {"Baklava Box 500g", aed(45, 0), aed(75, 0)},
			{"Chocolate Cake", aed(90, 0), aed(160, 0)}, {"Cinnamon Roll", aed(14, 0), aed(20, 0)}, {"Pistachio Maamoul (6)", aed(24, 0), aed(36, 0)},
		}},
	{Name: "Coffee", Arabic: "مقاهي", Commission: 0.06, Weight: 0.1,
		StoreNames: []string{"Bean Dune Roasters", "Qahwa House", "Brew Lab", "Cardamom Café"},
		Products: []productData{
			{"Flat White", aed(16, 0), aed(22, 0)}, {"Spanish Latte", aed(20, 0), aed(26, 0)}, {"Arabic Coffee Flask", aed(35, 0), aed(55, 0)},
			{"Cold Brew", aed(18, 0), aed(24, 0)}, {"Cappuccino", aed(15, 0), aed(20, 0)}, {"Pistachio Croissant", aed(16, 0), aed(22, 0)},
			{"V60 Pour Over", aed(24, 0), aed(32, 0)}, {"Iced Karak", aed(10, 0), aed(14, 0)}, {"Coffee Beans 250g", aed(55, 0), aed(85, 0)},
		}},
	{Name: "Pharmacy", Arabic: "صيدلية", Commission: 0.035, Weight: 0.08,
		StoreNames: []string{"Care Plus Pharmacy", "Al Shifa Pharmacy", "Wellness Corner"},
		Products: []productData{
			{"Paracetamol 500mg (24)", aed(8, 0), aed(14, 0)}, {"Vitamin D3 1000IU", aed(45, 0), aed(75, 0)}, {"Sunscreen SPF50", aed(55, 0), aed(120, 0)},
			{"Hand Sanitizer 500ml", aed(15, 0), aed(25, 0)}, {"First Aid Kit", aed(45, 0), aed(85, 0)}, {"Baby Diapers (Size 4)", aed(55, 0), aed(85, 0)},
			{"Multivitamin (60)", aed(65, 0), aed(110, 0)}, {"Face Masks (50)", aed(20, 0), aed(35, 0)},
		}},
	{Name: "Flowers & Gifts", Arabic: "زهور وهدايا", Commission: 0.08, Weight: 0.06,
		StoreNames: []string{"Bloom Boutique", "Desert Rose Florist", "Petals & Pearls"},
		Products: []productData{
			{"Red Roses Bouquet (12)", aed(150, 0), aed(250, 0)}, {"Mixed Tulips", aed(180, 0), aed(300, 0)}, {"Orchid Plant", aed(140, 0), aed(220, 0)},
			{"Chocolate Gift Box", aed(90, 0), aed(180, 0)}, {"Balloon Bundle", aed(60, 0), aed(110, 0)}, {"Succulent Pot", aed(45, 0), aed(75, 0)},
			{"Dates & Chocolate Hamper", aed(220, 0), aed(380, 0)},
		}},
	{Name: "Pet Supplies", Arabic: "مستلزمات الحيوانات الأليفة", Commission: 0.05, Weight: 0.04,
		StoreNames: []string{"Paws & Whiskers", "Happy Tails Pet Shop"},
		Products: []productData{
			{"Dry Cat Food 2kg", aed(45, 0), aed(80, 0)}, {"Dog Food 3kg", aed(70, 0), aed(120, 0)}, {"Cat Litter 10L", aed(30, 0), aed(50, 0)},
			{"Chew Toy", aed(20, 0), aed(40, 0)}, {"Pet Shampoo", aed(30, 0), aed(55, 0)}, {"Bird Seed 1kg", aed(15, 0), aed(25, 0)},
		}},
}

// People: first and family names of the many communities living in the UAE.
var firstNames = []string{
	"Ahmed", "Fatima", "Mohammed", "Aisha", "Omar", "Mariam", "Khalid", "Noura", "Hamdan", "Shamma",
	"Rashid", "Latifa", "Saeed", "Hessa", "Yousef", "Layla", "Karim", "Rania", "Tariq", "Huda",
	"Rahul", "Priya", "Arjun", "Ananya", "Imran", "Sana", "Faisal", "Ayesha", "Bilal", "Zainab",
	"Maria", "Jose", "Angela", "Mark", "Grace", "Paolo", "James", "Emma", "Oliver", "Sophie",
	"Daniel", "Chloe", "Lucas", "Elena", "Ivan", "Olga", "Chen", "Mei", "Kenji", "Yuki",
}

var familyNames = []string{
	"Al Maktoum", "Al Nahyan", "Al Qasimi", "Al Mansoori", "Al Hashimi", "Al Falasi", "Al Mazrouei", "Al Suwaidi", "Al Ketbi", "Al Shamsi",
	"Haddad", "Khoury", "Nasser", "Saleh", "Farouk", "Mansour", "Aziz", "Hamdan", "Youssef", "Barakat",
	"Sharma", "Patel", "Nair", "Menon", "Iyer", "Khan", "Qureshi", "Siddiqui", "Chaudhry", "Malik",
	"Santos", "Reyes", "Cruz", "Garcia", "Smith", "Taylor", "Brown", "Wilson", "Müller", "Rossi",
	"Petrov", "Ivanova", "Wang", "Li", "Tanaka", "Kim", "Okafor", "Mensah", "Dubois", "Novak",
}

// Mobile prefixes of the UAE operators.
var mobilePrefixes = []string{"50", "52", "54", "55", "56", "58"}

var addressNames = []string{"Home", "Work", "Parents", "Gym", "Villa"}

var buildingWords = []string{"Tower", "Residence", "Heights", "Court", "Plaza", "Gardens", "Building"}
var buildingNames = []string{"Marina", "Palm", "Falcon", "Pearl", "Oasis", "Crescent", "Emerald", "Sapphire", "Golden Sands", "Horizon", "Sunrise", "Creek"}
var landmarks = []string{"the metro station", "the mosque", "the park", "the supermarket", "the petrol station", "the mall", "the school", "the clinic"}

// Banks of the UAE, each with its IBAN bank code.
var banks = []struct{ Name, Code string }{
	{"Emirates NBD", "026"}, {"First Abu Dhabi Bank", "035"}, {"Abu Dhabi Commercial Bank", "030"},
	{"Mashreq", "033"}, {"Dubai Islamic Bank", "024"}, {"Abu Dhabi Islamic Bank", "050"},
}

// Review texts by rating (1..5): titles and comments, some in Arabic.
var reviewTitles = [6][]string{
	1: {"Very disappointed", "Not again", "Order went wrong", "Poor experience"},
	2: {"Below expectations", "Could be better", "Late and cold", "Not worth the price"},
	3: {"Okay", "Average experience", "Decent but slow", "Mixed feelings"},
	4: {"Good service", "Pretty good", "Would order again", "Nice quality"},
	5: {"Excellent!", "Highly recommended", "Best in the area", "Perfect as always", "ممتاز"},
}

var reviewComments = [6][]string{
	1: {"The order arrived an hour late and half of it was missing.", "Items were damaged and nobody answered the phone.",
		"Wrong items delivered and the refund took ages.", "التوصيل متأخر جداً والطلب غير مكتمل."},
	2: {"Delivery was slow and the packaging was poor.", "Quality was not what the photos suggested.",
		"The driver could not find the building and the food was cold.", "Prices went up but the portions went down."},
	3: {"Fine overall, but delivery took longer than promised.", "Good products, average service.",
		"Nothing special, nothing wrong.", "الخدمة عادية والأسعار مقبولة."},
	4: {"Fresh products and a friendly driver.", "Arrived on time and well packed.",
		"Good value for money, will order again.", "Tasty and quick, one item was missing a sauce."},
	5: {"Everything was perfect, fast delivery and great quality.", "My go-to place in the area, never disappoints.",
		"Excellent service, the driver called ahead and was very polite.", "خدمة ممتازة وتوصيل سريع، أنصح به بشدة.",
		"Always fresh and always on time."},
}

// spamComments are reviews the other customers report and a moderator hides.
var spamComments = []string{
	"Cheap followers and likes!!! Message me on WhatsApp for the best deals",
	"Visit my page for free gift cards, limited offer, click now",
}

var storeResponses = [6][]string{
	1: {"We are very sorry about this. Please send us your order number so we can make it right.", "Our apologies, this is not our standard. Our manager will call you today."},
	2: {"Thank you for the feedback, we are working on our delivery times.", "Sorry to hear that. We have shared your comments with the kitchen team."},
	3: {"Thanks for ordering with us, we hope to impress you next time.", "Thank you! We are adding more drivers in your area."},
	4: {"Thank you for the kind words!", "Glad you enjoyed it, see you again soon."},
	5: {"Thank you so much! We look forward to serving you again.", "شكراً لك! سعداء بخدمتك دائماً.", "Thank you for your support!"},
}

var flagReasons = []struct{ Reason, Description string }{
	{"fake", "This customer never ordered from here, looks fake."},
	{"inappropriate", "Rude language towards the staff."},
	{"irrelevant", "The review talks about another store."},
	{"offensive", "Personal attack on the driver."},
	{"other", "Mentions a phone number."},
}

var failureReasons = []string{"The bank rejected the transfer: account closed", "Beneficiary name does not match the account"}
var rejectionReasons = []string{"The IBAN belongs to a different account holder", "Payout requested during an open dispute"}
