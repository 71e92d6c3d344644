#!/usr/bin/env python3
"""Generated multi-session conversations kept as OpenClaw daily notes, with questions.

``generate(seed, phrasing)`` writes nothing: it returns the notes (``memory/YYYY-MM-DD.md`` →
text), the questions and the clock. A conversation spans about nine months: on about half of the
days the user talks to the assistant in one to three sessions about everyday topics (cooking,
running, code, travel, the house, work, family…). Facts are planted on random days — one or two
turns (a statement, or a statement completed after an assistant question) — among near-miss
sentences that share their words without answering. Some facts are restated or contradicted weeks
later (a move, a new password, a rescheduled appointment): the question asks for the current
state, its evidence is the newest statement and the older ones are *superseded*.

Every question shares some words with its evidence (in other forms: ``adopt``/``adopted``), never
the answer itself. ``phrasing`` picks the question wordings: the *tune* and *held-out* parts use
different wordings of each question, so that tuning on one cannot learn the other's words.
Deterministic: the same seed gives the same notes and questions.
"""

import datetime
import random

FIRST = ["Amara", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kavya",
         "Lucas", "Maren", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Santiago", "Tamsin", "Umar", "Vera",
         "Wen", "Ximena", "Yusuf", "Zofia", "Aurelio", "Beatrix", "Cormac", "Delphine", "Emeka", "Flavia"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Rossi", "Novak", "Haddad", "Fischer", "Kowalski", "Duarte",
        "Nakamura", "Bergström", "Ferreira", "Ivanova", "Mensah", "Castellano"]
CITIES = ["Lisbon", "Porto", "Ghent", "Leipzig", "Bologna", "Tallinn", "Krakow", "Valencia", "Lyon", "Utrecht",
          "Gothenburg", "Bilbao", "Trieste", "Aarhus", "Graz", "Seville", "Nantes", "Bergen", "Brno", "Cork"]
PETS = ["Pepper", "Biscuit", "Miso", "Juniper", "Waffles", "Olive", "Mochi", "Pickles", "Clementine", "Nacho",
        "Tofu", "Maple", "Ziggy", "Pumpkin"]
ANIMALS = ["dog", "cat", "rabbit", "parrot", "puppy", "kitten"]
CARS = ["Skoda Octavia", "Toyota Corolla", "Volvo V60", "Renault Zoe", "Mazda 3", "Kia Niro", "Honda Jazz",
        "Peugeot 308", "Hyundai Ioniq", "Fiat Panda"]
COLORS = ["dark blue", "silver", "forest green", "white", "burgundy", "charcoal grey", "sand beige"]
FOODS = ["peanuts", "shellfish", "sesame", "kiwi", "penicillin", "walnuts", "soy", "mustard"]
RESTAURANTS = ["Casa Lupo", "The Copper Pot", "Sakura Garden", "Bistro Verde", "La Tortuga", "Golden Lantern",
               "Mamma Rosa", "The Salt House", "Pho Saigon", "Little Lebanon"]
DISHES = ["mushroom risotto", "lamb tagine", "pad thai", "shakshuka", "ramen", "fish tacos", "moussaka",
          "butter chicken", "paella", "gnocchi"]
BOOKS = ["The Remains of the Day", "Piranesi", "The Overstory", "Klara and the Sun", "Middlemarch",
         "A Gentleman in Moscow", "The Left Hand of Darkness", "Station Eleven", "Pachinko", "Stoner"]
PROJECTS = ["Heron", "Bluebird", "Atlas", "Quokka", "Nimbus", "Falcon", "Juniper", "Tundra", "Orchid", "Pylon"]
LANGS = ["Portuguese", "Japanese", "German", "Korean", "Italian", "Turkish", "Dutch", "Greek"]
INSTRUMENTS = ["piano", "cello", "guitar", "violin", "saxophone", "ukulele"]
SPORTS = ["half marathon", "10k race", "triathlon", "cycling sportive", "trail race"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
HOSTS = ["db-eu-3", "build-07", "gw-lisbon", "cache-02", "api-prod-4", "ingest-11", "vault-ops-1"]
APPS = ["Duolingo", "Anki", "Strava", "Notion", "Obsidian", "Todoist"]
FLOWERS = ["tomatoes", "basil", "lavender", "chillies", "strawberries", "courgettes", "sunflowers"]


def pick(rng, pool):
    return rng.choice(pool)


def slots(rng):
    """Fresh values for every slot a template may use."""
    return {
        "name": pick(rng, FIRST), "name2": pick(rng, FIRST), "last": pick(rng, LAST),
        "city": pick(rng, CITIES), "city2": pick(rng, CITIES), "pet": pick(rng, PETS),
        "animal": pick(rng, ANIMALS), "car": pick(rng, CARS), "color": pick(rng, COLORS),
        "food": pick(rng, FOODS), "restaurant": pick(rng, RESTAURANTS), "dish": pick(rng, DISHES),
        "book": pick(rng, BOOKS), "project": pick(rng, PROJECTS), "lang": pick(rng, LANGS),
        "instrument": pick(rng, INSTRUMENTS), "sport": pick(rng, SPORTS), "weekday": pick(rng, WEEKDAYS),
        "month": pick(rng, MONTHS), "host": pick(rng, HOSTS), "app": pick(rng, APPS), "plant": pick(rng, FLOWERS),
        "n": rng.randint(2, 9), "nn": rng.randint(12, 95), "time": f"{rng.randint(7, 19)}:{rng.choice(['00', '15', '30', '45'])}",
        "code": f"{rng.randint(1000, 9999)}", "pw": rng.choice(["blue", "otter", "maple", "comet", "river"]) + rng.choice(["-", ""]) + f"{rng.randint(10, 99)}" + rng.choice(["fox", "lamp", "tide", "kite"]),
        "money": f"{rng.randint(2, 60) * 50}", "day": rng.randint(1, 28),
    }


# ----------------------------------------------------------------------------- filler topics
# Each topic: a session title and user / assistant sentences. They share vocabulary with the facts
# (family, pets, cars, food, work, health…) without stating any planted fact.

TOPICS = {
    "cooking": ("Dinner ideas", [
        "I want to cook something with {dish} flavours tonight, any tips?",
        "The {dish} I tried last week came out too salty, what went wrong?",
        "Can you suggest a side dish that goes with {dish}?",
        "I only have rice, onions and a tin of tomatoes left, what can I make?",
        "How long should I marinate chicken before grilling it?",
        "My {name} is coming over for dinner and she doesn't eat meat.",
        "Is it fine to freeze leftover {dish} for a week or two?",
        "We ordered from {restaurant} again, the delivery took forever.",
    ], [
        "A squeeze of lemon and fresh herbs at the end will lift the {dish}.",
        "Too much salt usually comes from the stock; try a low-sodium one next time.",
        "Roasted vegetables or a simple green salad would work well with it.",
        "You could make a quick tomato and onion rice, like a simple pilaf.",
        "Two to four hours is plenty; overnight can make the texture mushy.",
        "A vegetable curry or a mushroom dish would make a good meat-free main.",
        "Yes, most stews freeze well for up to three months in an airtight box.",
    ]),
    "running": ("Training", [
        "I ran {n} kilometres this morning, my knee felt a bit stiff afterwards.",
        "Should I run on rest days or just walk?",
        "What pace should I aim for on long easy runs?",
        "My running shoes have about {nn}0 km on them, time to replace them?",
        "The park loop near the river is muddy after all the rain.",
        "I keep getting side stitches in the first kilometre.",
        "Thinking about signing up for a {sport} next year, no idea which one yet.",
    ], [
        "A short walk or easy cycling on rest days helps recovery without extra load.",
        "Easy runs should feel conversational, about one to two minutes slower than race pace.",
        "Most running shoes last 600 to 800 km, so it is worth checking the midsole.",
        "Try a slower start and breathing in rhythm with your steps.",
        "Stiffness after a run usually settles; ice and gentle mobility work can help.",
    ]),
    "code": ("Debugging", [
        "The CI pipeline fails on the integration tests again, only on {host}.",
        "Postgres is slow on the reporting query, it does a sequential scan.",
        "How do I rebase my branch without losing the merge commits?",
        "The Rust borrow checker complains about a mutable borrow inside the loop.",
        "Our deploy to staging timed out after {nn} minutes.",
        "I need to rotate the API keys for the billing service this week.",
        "Project {project} needs a new endpoint for exporting reports as CSV.",
        "The flaky test passes locally but fails in the container.",
    ], [
        "An index on the filtered column should remove the sequential scan; check with EXPLAIN ANALYZE.",
        "Use git rebase with --rebase-merges to keep the merge commits.",
        "Collect the items first, then mutate them after the loop ends.",
        "Timeouts in deploys are often image pulls; check whether the cache was warm.",
        "Flaky tests in containers are often timing or locale differences.",
        "A streaming CSV writer keeps memory flat for large exports.",
    ]),
    "travel": ("Trip planning", [
        "Thinking about a weekend in {city}, is it worth it in {month}?",
        "What is the cheapest way to get from the airport to the centre of {city}?",
        "I need a hotel near the old town in {city}, something quiet.",
        "Do I need to book museum tickets in advance in {city}?",
        "Our train to {city2} was cancelled, we had to take a bus.",
        "Packing list for a {n}-day trip with only hand luggage?",
    ], [
        "{month} is shoulder season there, fewer crowds and lower prices.",
        "The airport bus is usually the cheapest; taxis cost about four times more.",
        "Booking ahead is wise for the big museums, especially at weekends.",
        "Roll your clothes and keep liquids in one clear bag for security.",
    ]),
    "house": ("Home", [
        "The boiler makes a banging noise when the heating starts.",
        "We want to repaint the living room, maybe a warm {color}.",
        "The kitchen tap drips even when it's closed tight.",
        "Our landlord still hasn't fixed the window in the bedroom.",
        "How do I get rid of mould on the bathroom ceiling?",
        "The neighbour's {animal} got into our garden again.",
        "I should water the {plant} on the balcony more often.",
    ], [
        "Banging pipes often mean air in the system; bleeding the radiators may help.",
        "A worn washer is the usual cause of a dripping tap; it is a cheap fix.",
        "Clean it with a diluted bleach solution and improve ventilation.",
        "Put the request to your landlord in writing and keep a copy.",
    ]),
    "work": ("Work", [
        "The quarterly planning meeting ran two hours over.",
        "My manager wants a written proposal for the {project} migration.",
        "I have {n} one-on-ones tomorrow and no time to prepare.",
        "The team offsite is in {city} this year.",
        "I need to write a performance review for {name}.",
        "We are hiring two backend engineers, the interviews start next week.",
        "The standup keeps drifting into design discussions.",
    ], [
        "Start the proposal with the problem, the options and a clear recommendation.",
        "A short agenda shared beforehand keeps one-on-ones focused.",
        "Timebox the standup and move design topics to a separate meeting.",
        "Concrete examples make a performance review fairer and easier to read.",
    ]),
    "family": ("Family", [
        "My mum called, she wants everyone home for her birthday in {month}.",
        "{name} and I argued about holiday plans again.",
        "My brother's kids are visiting and I have no idea how to entertain them.",
        "I forgot my cousin's wedding anniversary, I need to send something.",
        "My dad is thinking about retiring to {city}.",
        "Grandma's ninetieth birthday party is being planned by my aunt.",
    ], [
        "A board game afternoon or a picnic works well with kids of mixed ages.",
        "A handwritten card and flowers is a kind way to make up for a late anniversary.",
        "It helps to agree on the must-haves for the holiday before choosing a place.",
    ]),
    "health": ("Health", [
        "I've had a headache for {n} days, probably too much screen time.",
        "Sleeping badly this week, I wake up at four every night.",
        "The doctor wants blood tests before my next check-up.",
        "Should I take vitamin D in winter?",
        "My back hurts after sitting all day at the desk.",
        "I got my flu shot at the pharmacy today.",
    ], [
        "Regular breaks from the screen and enough water can help with tension headaches.",
        "A fixed wake-up time and no screens before bed often improve sleep.",
        "Many doctors recommend vitamin D in winter at northern latitudes; ask yours about the dose.",
        "A standing break every half hour and a better chair height help the back.",
    ]),
    "money": ("Budget", [
        "We spent way too much on groceries this month.",
        "Should I move my savings into an index fund?",
        "The car insurance renewal went up by {nn} percent.",
        "I want to set aside {money} euros a month for a trip.",
        "Our electricity bill doubled since last winter.",
    ], [
        "A weekly meal plan and a shopping list usually cut grocery spending.",
        "Index funds are a common long-term choice; keep an emergency fund aside first.",
        "Comparing quotes before renewing often brings the premium down.",
        "An automatic transfer on payday makes saving easier.",
    ]),
    "reading": ("Books and films", [
        "I finally finished {book}, the ending surprised me.",
        "Can you recommend something similar to {book}?",
        "We watched a documentary about deep sea creatures last night.",
        "I keep starting books and not finishing them.",
        "Is the film adaptation of {book} any good?",
    ], [
        "If you liked its quiet tone, you might enjoy other literary novels of the same period.",
        "Reading twenty minutes before bed is an easy habit to build.",
        "Adaptations vary; many readers prefer the book for its inner voice.",
    ]),
    "garden": ("Garden", [
        "The {plant} on the balcony are turning yellow.",
        "When should I plant {plant} outside?",
        "Slugs ate half of the lettuce overnight.",
        "We built a small raised bed from old pallets.",
    ], [
        "Yellow leaves often mean overwatering; let the soil dry between waterings.",
        "After the last frost is the safe time for most summer plants.",
        "Beer traps or copper tape help against slugs.",
    ]),
    "music": ("Practice", [
        "I practised scales for half an hour but my left hand is still slow.",
        "The {instrument} needs tuning again, the weather keeps changing.",
        "Any tips for playing in front of people without shaking?",
        "I want to learn a jazz standard this month.",
    ], [
        "Slow practice with a metronome builds speed more reliably than rushing.",
        "Humidity changes affect tuning; a humidifier in the room helps.",
        "Playing for one friend first, then small groups, builds confidence gradually.",
    ]),
}

# ----------------------------------------------------------------------------- facts
# evidence: variants, each a list of turns (speaker, text); the user turns are the evidence.
# questions: {"tune": [...], "held-out": [...]} about the current state (never the answer).
# update: optional later statements (a new value for "value" slots); restate: same value again.
# near: near-miss sentences sprinkled elsewhere (same words, no answer).

FACTS = [
    {"id": "pet", "value": ["pet"],
     "evidence": [[("User", "We finally adopted a {animal} from the shelter, we named her {pet}.")],
                  [("User", "Big news, we adopted a {animal} this weekend!"), ("Assistant", "Congratulations! Have you picked a name yet?"), ("User", "Yes, her name is {pet}.")]],
     "questions": {"tune": ["What did we name the {animal} we adopted?", "What is the name of our adopted {animal}?"],
                   "held-out": ["What's our new {animal} called?", "Remind me of the name we gave the {animal} from the shelter"]},
     "near": ["My colleague adopted a {animal} last year and loves it.", "The shelter has an open day for people thinking about adopting.", "We keep talking about getting a {animal} someday."]},
    {"id": "sister_city", "value": ["city"], "update_value": ["city2"],
     "evidence": [[("User", "My sister {name} just moved to {city} for her new job.")],
                  [("User", "{name} called, she's relocating to {city} next month, the job offer came through.")]],
     "update": [[("User", "{name} moved again, she lives in {city2} now.")], [("User", "Update on my sister: {name} left {city} and settled in {city2}.")]],
     "questions": {"tune": ["Which city does my sister {name} live in?", "Where is {name} living these days?"],
                   "held-out": ["In what city is my sister {name} based now?", "Where did my sister {name} move to?"]},
     "near": ["My sister {name2} visited last weekend.", "{name} sent photos of her new office."]},
    {"id": "car", "value": ["car", "color"],
     "evidence": [[("User", "I bought a used car yesterday: a {color} {car} with low mileage.")],
                  [("User", "We picked up the car today!"), ("Assistant", "Exciting, what did you go for?"), ("User", "A {color} {car}, second hand but in great shape.")]],
     "questions": {"tune": ["What car did I buy?", "Which model of car did we purchase?"],
                   "held-out": ["What kind of car do I drive now?", "What was the second hand car I bought?"]},
     "near": ["The car insurance letter arrived today.", "My neighbour is selling his old car.", "Car parks in the centre are so expensive."]},
    {"id": "allergy", "value": ["food"],
     "evidence": [[("User", "The allergy test came back, I'm allergic to {food}.")],
                  [("User", "Doctor confirmed the allergy: I'm allergic to {food}, so no more of that for me.")]],
     "questions": {"tune": ["What am I allergic to?", "What did the allergy test show?"],
                   "held-out": ["Which food allergy did the doctor confirm?", "What should I avoid eating because of my allergy?"]},
     "near": ["Hay fever season is starting, my eyes are itchy.", "The doctor wants blood tests before my check-up."]},
    {"id": "wifi", "value": ["pw"], "update_value": ["pw2"],
     "evidence": [[("User", "Note to self: the guest wifi password is {pw}.")], [("User", "I set up the guest network, password {pw}.")]],
     "update": [[("User", "Changed the guest wifi password, it's {pw2} now.")], [("User", "New guest network password: {pw2}, the old one leaked.")]],
     "questions": {"tune": ["What is the guest wifi password?", "What's the password for the guest network?"],
                   "held-out": ["Remind me of the wifi password for guests", "What password do visitors use for the wifi?"]},
     "near": ["The wifi keeps dropping in the bedroom.", "I need to change the router admin password someday."]},
    {"id": "dentist", "value": ["weekday", "time"], "update_value": ["weekday2", "time2"],
     "evidence": [[("User", "Booked a dentist appointment with Dr. {last} on {weekday} at {time}.")],
                  [("User", "The dentist could fit me in: {weekday}, {time}, Dr. {last}.")]],
     "update": [[("User", "Had to reschedule the dentist to {weekday2} at {time2}.")], [("User", "Dr. {last}'s office moved my dentist appointment to {weekday2} {time2}.")]],
     "questions": {"tune": ["When is my dentist appointment?", "What day did I book the dentist?"],
                   "held-out": ["At what time do I see the dentist?", "When do I have to go to the dentist?"]},
     "near": ["My tooth feels sensitive to cold drinks.", "I should floss more often, the dentist always says so."]},
    {"id": "manager", "value": ["name", "last"],
     "evidence": [[("User", "My new manager is {name} {last}, she starts on Monday.")],
                  [("User", "Reorg news: I now report to {name} {last}, she's my manager from next week.")]],
     "questions": {"tune": ["Who is my new manager?", "Who do I report to after the reorg?"],
                   "held-out": ["What is my manager's name?", "Who is managing me after the reorg?"]},
     "near": ["My manager wants a written proposal.", "The reorg announcement was vague."]},
    {"id": "codename", "value": ["project"],
     "evidence": [[("User", "The new search rewrite got a codename: Project {project}.")],
                  [("User", "We're calling the billing migration project {project} internally, that's the codename.")]],
     "questions": {"tune": ["What is the codename of the new project?", "What did we call the migration project internally?"],
                   "held-out": ["What's the internal name of the rewrite?", "Which codename did the team pick?"]},
     "near": ["The project kickoff is next week.", "Naming things is the hardest part of any project."]},
    {"id": "server", "value": ["host"], "update_value": ["host2"],
     "evidence": [[("User", "The nightly backups run on {host}, remember that for the runbook.")], [("User", "Moved the backup job to {host} so it stops clashing with deploys.")]],
     "update": [[("User", "We migrated the nightly backups from {host} to {host2}.")], [("User", "Backups live on {host2} now, {host} is being decommissioned.")]],
     "questions": {"tune": ["Which host runs the nightly backups?", "On which server do the backups run?"],
                   "held-out": ["Where is the backup job scheduled?", "What machine handles the nightly backup?"]},
     "near": ["The disk on the build server is almost full.", "We should test restoring a backup someday."]},
    {"id": "book_club", "value": ["book"],
     "evidence": [[("User", "The book club picked {book} for next month.")], [("User", "Next book club read is {book}, I have to buy it.")]],
     "questions": {"tune": ["Which book did the book club choose?", "What are we reading for book club?"],
                   "held-out": ["What is the next book club book?", "What novel was picked for the reading group?"]},
     "near": ["The book club meeting was cancelled because of the storm.", "I never finish book club books on time."]},
    {"id": "race_time", "value": ["nn"],
     "evidence": [[("User", "Finished the {sport} in 1 hour {nn} minutes, a personal best!")], [("User", "Official result for the {sport}: 1:{nn}, really happy with it.")]],
     "questions": {"tune": ["What was my time in the {sport}?", "How fast did I finish the {sport}?"],
                   "held-out": ["What was my finishing time at the {sport}?", "How long did the {sport} take me?"]},
     "near": ["Race day nerves are real.", "I registered for a {sport} but I'm not sure about training."]},
    {"id": "anniversary", "value": ["month", "day"],
     "evidence": [[("User", "Our wedding anniversary is on {month} {day}, the day we got married, don't let me forget.")], [("User", "Reminder: {name} and I got married on {month} {day}, our anniversary.")]],
     "questions": {"tune": ["When is our wedding anniversary?", "What date did we get married?"],
                   "held-out": ["On which day is my anniversary?", "When should I celebrate our marriage anniversary?"]},
     "near": ["My cousin's wedding was lovely.", "We went to a wedding fair for fun."]},
    {"id": "medication", "value": ["nn"], "update_value": ["nn2"],
     "evidence": [[("User", "The doctor put me on {nn} mg of the blood pressure medication, once a day.")], [("User", "New prescription: {nn} mg daily for blood pressure.")]],
     "update": [[("User", "Doctor increased my blood pressure dose to {nn2} mg.")], [("User", "My blood pressure prescription changed, it's {nn2} mg a day now.")]],
     "questions": {"tune": ["What dose of blood pressure medication do I take?", "How many mg is my prescription?"],
                   "held-out": ["How much of the blood pressure pill should I take?", "What is my current medication dose?"]},
     "near": ["Pharmacy queues are long on Mondays.", "My blood pressure reading was fine at the gym."]},
    {"id": "restaurant", "value": ["restaurant", "dish"],
     "evidence": [[("User", "Best dinner in ages at {restaurant}, the {dish} was incredible, new favourite restaurant.")], [("User", "New favourite restaurant for dinner: {restaurant}. Order the {dish}.")]],
     "questions": {"tune": ["Which restaurant did I love recently?", "Where did I have that amazing dinner?"],
                   "held-out": ["What is my new favourite restaurant?", "Which place served the incredible dinner?"]},
     "near": ["Restaurants in the centre are overpriced.", "We should try a new restaurant for the anniversary."]},
    {"id": "language", "value": ["lang", "app"],
     "evidence": [[("User", "I started learning a new language, {lang}, with {app}, fifteen minutes a day.")], [("User", "Signed up for {lang} language lessons, using {app} between classes.")]],
     "questions": {"tune": ["Which language am I learning?", "What language did I start studying?"],
                   "held-out": ["What foreign language am I practising?", "Which language lessons did I sign up for?"]},
     "near": ["Learning a language as an adult is hard.", "My {lang} colleague taught me a few words."]},
    {"id": "landlord_phone", "value": ["code"],
     "evidence": [[("User", "Landlord's new phone number ends in {code}, the old one is dead.")], [("User", "Saving this: landlord's mobile, the one ending {code}.")]],
     "questions": {"tune": ["What are the last digits of the landlord's number?", "What's my landlord's phone number?"],
                   "held-out": ["How do I reach the landlord by phone?", "Which number should I call for the landlord?"]},
     "near": ["Our landlord still hasn't fixed the window.", "The landlord wants to raise the rent."]},
    {"id": "bike_lock", "value": ["code"],
     "evidence": [[("User", "Bike lock combination is {code}, writing it here because I always forget.")], [("User", "Set the new bike lock code to {code}.")]],
     "questions": {"tune": ["What is my bike lock combination?", "What code opens the bike lock?"],
                   "held-out": ["Remind me of the combination for my bike lock", "How do I open my bicycle lock?"]},
     "near": ["Someone stole the front light off my bike.", "I need new brake pads for the bike."]},
    {"id": "standup", "value": ["time"], "update_value": ["time2"],
     "evidence": [[("User", "The team standup moved to {time} every morning.")], [("User", "From next week our daily standup is at {time}.")]],
     "update": [[("User", "Standup changed again, it's at {time2} now.")], [("User", "New standup time: {time2}, because of the time zones.")]],
     "questions": {"tune": ["What time is the daily standup?", "When is our team standup?"],
                   "held-out": ["At what hour do we have standup?", "When does the morning standup start?"]},
     "near": ["The standup keeps drifting into design discussions.", "I missed standup because of the dentist."]},
    {"id": "kid_school", "value": ["name2", "last"],
     "evidence": [[("User", "Our daughter got a place at {last} Primary, her teacher is Ms {name2}.")], [("User", "School letter came: {last} Primary accepted her, class teacher {name2}.")]],
     "questions": {"tune": ["Which school did our daughter get into?", "Who is our daughter's teacher?"],
                   "held-out": ["What primary school will our daughter attend?", "What's the name of her class teacher?"]},
     "near": ["School runs in the rain are miserable.", "The school fair raised a lot of money."]},
    {"id": "plant_watering", "value": ["plant", "n"],
     "evidence": [[("User", "The garden centre said to water the {plant} every {n} days, not more.")], [("User", "Watering rule for the {plant}: once every {n} days.")]],
     "questions": {"tune": ["How often should I water the {plant}?", "What watering schedule did the garden centre suggest?"],
                   "held-out": ["How many days between waterings for the {plant}?", "When do the {plant} need water?"]},
     "near": ["The balcony gets too much afternoon sun.", "We built a raised bed from pallets."]},
    {"id": "salary", "value": ["nn"],
     "evidence": [[("User", "Got the salary raise! {nn} percent more from next month.")], [("User", "HR confirmed my salary raise of {nn} percent.")]],
     "questions": {"tune": ["How much was my raise?", "By what percent did my salary increase?"],
                   "held-out": ["What salary increase did HR confirm?", "How big was the pay rise I got?"]},
     "near": ["Salary negotiations make me nervous.", "The budget for raises is tight this year."]},
    {"id": "neighbour", "value": ["name", "instrument"],
     "evidence": [[("User", "Met the new neighbour today, {name}, she teaches {instrument}.")], [("User", "The neighbour upstairs is called {name}; the {instrument} music comes from her flat.")]],
     "questions": {"tune": ["What's the name of the new neighbour?", "Who is the new neighbour?"],
                   "held-out": ["What is our neighbour called?", "Which neighbour plays music upstairs?"]},
     "near": ["The neighbour's dog got into our garden.", "Neighbours complained about the recycling bins."]},
    {"id": "vacation", "value": ["city", "month"], "update_value": ["city2"],
     "evidence": [[("User", "Booked the summer holiday: {city} in {month}!")], [("User", "We decided: holiday in {city}, flights booked for {month}.")]],
     "update": [[("User", "Change of plans, the holiday is {city2} instead, same dates.")], [("User", "We cancelled {city} and rebooked the holiday for {city2}.")]],
     "questions": {"tune": ["Where are we going on holiday?", "Which city did we book for the summer holiday?"],
                   "held-out": ["What is our holiday destination?", "Where did we book the vacation?"]},
     "near": ["Holiday prices are crazy this year.", "My colleague recommended a holiday in the mountains."]},
    {"id": "insurance", "value": ["code"],
     "evidence": [[("User", "Home insurance policy number is HX-{code}, keep it handy.")], [("User", "For claims the insurer needs policy HX-{code}.")]],
     "questions": {"tune": ["What is our home insurance policy number?", "Which policy number do I give the insurer?"],
                   "held-out": ["What's the number of the house insurance policy?", "Where is the insurance policy number?"]},
     "near": ["The car insurance renewal went up.", "Insurance paperwork is so boring."]},
    {"id": "coffee", "value": ["nn"],
     "evidence": [[("User", "{name} always orders an oat flat white coffee with an extra shot, I need to remember for Friday.")], [("User", "Coffee order for {name}: oat flat white, extra shot.")]],
     "questions": {"tune": ["What coffee does {name} drink?", "How does {name} take her coffee?"],
                   "held-out": ["What is {name}'s usual coffee order?", "What should I order for {name} at the cafe?"]},
     "near": ["The coffee machine at work is broken again.", "I should drink less coffee in the afternoon."]},
    {"id": "gym", "value": ["weekday", "time"], "update_value": ["weekday2", "time2"],
     "evidence": [[("User", "Signed up for the spin class on {weekday}s at {time}.")], [("User", "My gym class is {weekday} {time}, spinning.")]],
     "update": [[("User", "Switched my spin class to {weekday2} at {time2}.")], [("User", "Spin class moved to {weekday2} {time2}.")]],
     "questions": {"tune": ["When is my spin class?", "What day do I go spinning?"],
                   "held-out": ["At what time is the gym class?", "Which day is my spinning session?"]},
     "near": ["The gym was packed after New Year.", "I forgot my towel at the gym."]},
    {"id": "doctor", "value": ["name", "last"],
     "evidence": [[("User", "Registered with a new GP, Dr. {name} {last}, at the clinic by the station.")], [("User", "My family doctor (GP) is now Dr. {last}, first name {name}.")]],
     "questions": {"tune": ["Who is my new GP?", "What is my family doctor's name?"],
                   "held-out": ["Which doctor did I register with?", "Which GP am I registered with?"]},
     "near": ["The clinic waiting room was full.", "The doctor wants blood tests."]},
    {"id": "birthday_gift", "value": ["book"],
     "evidence": [[("User", "Bought a signed copy of {book} for {name}'s birthday present.")], [("User", "Gift for {name}'s birthday: {book}, first edition.")]],
     "questions": {"tune": ["What did I buy for {name}'s birthday?", "Which present did I get {name}?"],
                   "held-out": ["What gift did I choose for {name}?", "What birthday present is for {name}?"]},
     "near": ["Birthday parties for kids are exhausting.", "I never know what present to buy."]},
    {"id": "parking", "value": ["code", "n"],
     "evidence": [[("User", "Our parking space at the new flat is number {code}, level minus {n}.")], [("User", "Assigned parking: space {code} on level -{n}.")]],
     "questions": {"tune": ["What is our parking space number?", "Which level is our parking spot on?"],
                   "held-out": ["Where do we park at the new flat?", "What number is the assigned parking space?"]},
     "near": ["Parking in the centre is expensive.", "Someone parked in front of our garage."]},
    {"id": "recipe_secret", "value": ["dish"],
     "evidence": [[("User", "Grandma's secret for the {dish}: a spoon of smoked paprika and a splash of vinegar.")], [("User", "Finally got Grandma's {dish} recipe, the trick is smoked paprika and vinegar at the end.")]],
     "questions": {"tune": ["What is grandma's secret ingredient?", "What's the trick in Grandma's recipe?"],
                   "held-out": ["How does Grandma make her {dish} taste so good?", "Which ingredients make Grandma's recipe special?"]},
     "near": ["Grandma's ninetieth birthday is coming up.", "I tried a new {dish} recipe and it failed."]},
    {"id": "flight", "value": ["code"],
     "evidence": [[("User", "Flight for the conference is TP{code}, leaves at 7 in the morning.")], [("User", "Booked flight TP{code} to the conference.")]],
     "questions": {"tune": ["What is my flight number for the conference?", "Which flight did I book?"],
                   "held-out": ["What flight am I taking to the conference?", "What's the conference flight number?"]},
     "near": ["Flights are cheaper on Tuesdays apparently.", "The conference agenda is out."]},
    {"id": "therapy", "value": ["weekday"],
     "evidence": [[("User", "Started therapy sessions, every {weekday} after work.")], [("User", "My therapy moved: the therapist sees me on {weekday} evenings now.")]],
     "questions": {"tune": ["Which day are my therapy sessions?", "When do I see my therapist?"],
                   "held-out": ["On what day is therapy?", "What evening do I have my therapist appointment?"]},
     "near": ["Therapy is expensive without insurance.", "My friend recommended a therapist."]},
]


def fill(t, s):
    return t.format(**s)


def date_str(d):
    return d.strftime("%Y-%m-%d")


def generate(seed, phrasing="tune", days=270, facts_per_conv=None):
    rng = random.Random(seed)
    start = datetime.date(2025, 6, 2) + datetime.timedelta(days=rng.randint(0, 30))
    all_days = [start + datetime.timedelta(days=i) for i in range(days)]
    note_days = [d for d in all_days if rng.random() < 0.55]
    now = all_days[-1] + datetime.timedelta(days=1)
    # Sessions per note day: (topic, [turns]).
    sessions = {d: [] for d in note_days}
    for d in note_days:
        for _ in range(rng.choice([1, 2, 2, 3, 3, 4])):
            topic = rng.choice(sorted(TOPICS))
            title, user, asst = TOPICS[topic]
            # A session does not repeat itself: its sentences are drawn without replacement.
            us = rng.sample(user, rng.randint(3, len(user)))
            turns = []
            for u in us:
                s = slots(rng)
                turns.append(("User", fill(u, s)))
                turns.append(("Assistant", fill(rng.choice(asst), s)))
            sessions[d].append([title, turns])
    facts = list(FACTS)
    rng.shuffle(facts)
    if facts_per_conv:
        facts = facts[:facts_per_conv]
    questions = []

    def plant(day, turns):
        """Insert turns into a random session of `day`; returns the note path."""
        sess = rng.choice(sessions[day])
        at = rng.randrange(0, len(sess[1]) + 1, 2) if sess[1] else 0
        sess[1][at:at] = turns
        return f"memory/{date_str(day)}.md"

    for f in facts:
        s = slots(rng)
        s2 = slots(rng)
        for k in f.get("update_value", []):
            base = k[:-1] if k.endswith("2") else k
            s[k] = s2[base]
            while s[k] == s[base]:
                s[k] = slots(rng)[base]
        first = rng.randrange(0, len(note_days) - 1)
        day = note_days[first]
        turns = [(sp, fill(t, s)) for sp, t in rng.choice(f["evidence"])]
        ev = plant(day, turns)
        evidence, superseded = [ev], []
        said = [t for sp, t in turns if sp == "User"]
        last_day = day
        if "update" in f and rng.random() < 0.5 and first < len(note_days) - 20:
            later = note_days[rng.randrange(first + 15, len(note_days))]
            upd = [(sp, fill(t, s)) for sp, t in rng.choice(f["update"])]
            superseded, evidence = [ev], [plant(later, upd)]
            said = [t for sp, t in upd if sp == "User"]
            last_day = later
        elif rng.random() < 0.15 and first < len(note_days) - 20:
            # Restated later, same value.
            later = note_days[rng.randrange(first + 15, len(note_days))]
            again = [(sp, fill(t, s)) for sp, t in rng.choice(f["evidence"])]
            superseded, evidence = [ev], [plant(later, again)]
            said = [t for sp, t in again if sp == "User"]
            last_day = later
        for near in f.get("near", []):
            d = rng.choice(note_days)
            plant(d, [("User", fill(near, slots(rng) | {k: s[k] for k in ("animal", "sport", "plant", "lang", "dish") if k in s}))])
        q = fill(rng.choice(f["questions"][phrasing]), s)
        questions.append({
            "query": q,
            "fact": f["id"],
            "evidence": evidence,
            "evidence_lines": said,
            "superseded": superseded,
            "old_only": not superseded and (now - last_day).days > 90,
        })
    notes = {}
    for d in note_days:
        lines = [f"# {date_str(d)}", ""]
        for i, (title, turns) in enumerate(sessions[d]):
            hh = 8 + 4 * i + rng.randint(0, 3)
            lines += [f"## Session {i + 1} ({hh:02d}:{rng.randint(0, 59):02d}) — {title}", ""]
            for sp, t in turns:
                lines.append(f"{sp}: {t}")
            lines.append("")
        notes[f"memory/{date_str(d)}.md"] = "\n".join(lines)
    return {"notes": notes, "questions": questions, "now": f"{date_str(now)}T09:00:00Z"}


if __name__ == "__main__":
    import json
    import sys
    c = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
    print(json.dumps({"notes": len(c["notes"]), "questions": c["questions"][:5], "now": c["now"]}, indent=1))
