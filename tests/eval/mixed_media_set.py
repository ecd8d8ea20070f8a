"""What the mixed-media eval set says and shows (tests/eval/mixed_media.py): eight short
lectures as users record them, each a run of slides with a few sentences spoken over each.

The set is written so that each query style has a clear answer:
- slide-only words: a slide line the speech never says (the speech talks about the same
  thing in other words: "Swiss Water Process" on the slide, "soaks green beans in plain
  water" in the speech);
- speech in English, Spanish, German and French (espeak-ng voices), one lecture switching
  from English to Spanish halfway, one slide in Chinese;
- four lectures carry their captions beside the video (`.en.vtt`, `.fr.vtt`, `.fr.srt`,
  an untagged `.srt`), the others are transcribed by the server; French is spoken only in
  captioned ones (Whisper base makes nonsense of espeak-ng's French).

A sentence is named `<lecture>/<slide>.<sentence>` (both from 1), a slide
`<lecture>/slide<n>`; the queries (mixed_media_queries.jsonl) name their answers so.
Changing a word here changes the media: the generator's cache key is this content.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Slide:
    lines: tuple[str, ...]
    """The slide's text, title first."""
    said: tuple[str, ...]
    """The sentences spoken while the slide is shown."""
    voice: str = ""
    """espeak-ng voice of this slide's speech when it differs from the lecture's."""
    pause_after: float = 0.0
    """Extra silence after the last sentence (the lecturer writes on the board)."""


@dataclass(frozen=True)
class Lecture:
    name: str
    """The video's file stem, which is its video_id once indexed."""
    voice: str
    colour: str
    slides: tuple[Slide, ...]
    captions: str = ""
    """Suffix of a caption file written beside the video (".en.vtt", ".srt"), or none."""
    language: str = field(default="")
    """The caption language, for the `.srt` that has no tag."""


LECTURES: tuple[Lecture, ...] = (
    Lecture(
        "coffee_chemistry",
        "en-us",
        "#3b2a1f",
        (
            Slide(
                ("Coffee Chemistry", "Lecture 3: from bean to cup"),
                (
                    "Welcome back, today we follow a coffee bean from the farm to your cup.",
                    "Most of what you taste is created during roasting, not on the tree.",
                ),
            ),
            Slide(
                ("Where Coffee Grows", "Arabica and Robusta"),
                (
                    "Coffee plants grow best in the mountains near the equator.",
                    "Higher farms ripen the cherries slowly, which gives a sweeter cup.",
                    "After picking, the fruit is removed and the seeds are dried in the sun.",
                ),
            ),
            Slide(
                ("Roasting", "Maillard reaction temperature: 140-165 °C", "Caramelization: 170 °C"),
                (
                    "When the beans get hot enough, sugars and amino acids combine "
                    "and the beans turn brown.",
                    "That browning is where the nutty and toasty flavours come from.",
                    "If the roaster pushes the heat further, the sugars themselves begin "
                    "to burn and taste bitter.",
                ),
            ),
            Slide(
                ("Decaffeination", "Swiss Water Process", "No chemical solvents"),
                (
                    "Some people want the taste of coffee without the stimulant.",
                    "One method soaks green beans in plain water and filters the caffeine "
                    "out through charcoal.",
                    "The flavour stays because the water is already saturated with "
                    "everything except caffeine.",
                ),
                pause_after=4.0,
            ),
            Slide(
                ("Brewing", "Extraction yield: 18-22 %"),
                (
                    "Grinding finer exposes more surface, so the water pulls out flavour faster.",
                    "If your espresso tastes sour, the water probably ran through too quickly.",
                ),
            ),
            Slide(
                ("Storage",),
                (
                    "Keep roasted beans in a sealed container away from light.",
                    "Ground coffee goes stale within days because it loses its aromas quickly.",
                ),
            ),
        ),
    ),
    Lecture(
        "ciclo_del_agua",
        "es",
        "#1f3f5f",
        (
            Slide(
                ("El ciclo del agua", "Hidrología, clase 2"),
                (
                    "Hoy vamos a hablar de cómo el agua viaja por el planeta.",
                    "El sol calienta los océanos y una parte del agua se convierte en vapor.",
                ),
            ),
            Slide(
                ("El agua en cifras", "97 % agua salada"),
                (
                    "Casi toda el agua del planeta está en los mares y es salada.",
                    "Solo una pequeña parte es dulce, y la mayoría está congelada en los polos.",
                    "Una gota puede pasar miles de años en un glaciar antes de volver al mar.",
                ),
            ),
            Slide(
                ("Condensación", "Punto de rocío"),
                (
                    "Cuando el aire húmedo sube, se enfría y el vapor forma pequeñas gotas.",
                    "Millones de esas gotas juntas son las nubes que vemos en el cielo.",
                ),
            ),
            Slide(
                ("Precipitación", "Escorrentía superficial", "Infiltración"),
                (
                    "Cuando las gotas crecen demasiado, caen como lluvia o nieve.",
                    "Parte del agua corre por la superficie hasta llegar a los ríos.",
                    "Otra parte se filtra en el suelo y alimenta los acuíferos subterráneos.",
                ),
                pause_after=3.0,
            ),
            Slide(
                ("Evapotranspiración",),
                ("Los árboles también devuelven agua a la atmósfera a través de sus hojas.",),
            ),
        ),
    ),
    Lecture(
        "sauerteig",
        "de",
        "#5f4a1f",
        (
            Slide(
                ("Brot backen mit Sauerteig",),
                (
                    "Heute backen wir zusammen ein einfaches Brot mit Sauerteig.",
                    "Ein Sauerteig ist eine Mischung aus Mehl und Wasser, in der wilde Hefen leben.",
                ),
            ),
            Slide(
                ("Teigführung", "Autolyse: 30 Minuten"),
                (
                    "Zuerst mischen wir nur Mehl und Wasser und lassen den Teig "
                    "eine halbe Stunde ruhen.",
                    "In dieser Zeit bildet sich das Klebergerüst fast von selbst.",
                ),
            ),
            Slide(
                ("Gare", "Stockgare: 5 Stunden bei 24 °C"),
                (
                    "Danach braucht der Teig viele Stunden an einem warmen Ort, damit er aufgeht.",
                    "Milchsäurebakterien geben dem Brot seinen leicht sauren Geschmack.",
                ),
            ),
            Slide(
                ("Backen", "Gusseiserner Topf, 250 °C"),
                (
                    "Im sehr heißen Ofen bekommt das Brot eine dunkle, knusprige Kruste.",
                    "Schneiden Sie das Brot erst an, wenn es vollständig abgekühlt ist.",
                ),
            ),
            Slide(
                ("Anstellgut pflegen",),
                (
                    "Den Sauerteig füttert man jeden Tag mit frischem Mehl und Wasser.",
                    "Im Kühlschrank überlebt er eine Woche ohne Futter.",
                    "Riecht er nach Nagellack, dann ist er hungrig.",
                ),
            ),
        ),
    ),
    Lecture(
        "les_volcans",
        "fr-fr",
        "#5f1f1f",
        (
            Slide(
                ("Les volcans", "Géologie, séance 5"),
                (
                    "Aujourd'hui nous allons voir pourquoi certains volcans explosent.",
                    "Sous nos pieds, la roche fondue s'appelle le magma.",
                ),
            ),
            Slide(
                ("Types d'éruptions", "Éruption effusive", "Éruption explosive"),
                (
                    "Quand le magma est fluide, la lave coule doucement sur les flancs.",
                    "Quand il est épais et plein de gaz, la pression monte jusqu'à l'explosion.",
                ),
                pause_after=3.0,
            ),
            Slide(
                ("Risques", "Nuée ardente", "Lahar"),
                (
                    "Le plus dangereux est souvent un nuage brûlant de cendres qui descend "
                    "la pente à grande vitesse.",
                    "Les habitants doivent être évacués bien avant l'éruption.",
                ),
            ),
            Slide(
                ("Volcans célèbres", "Vésuve, an 79"),
                (
                    "La ville de Pompéi a été ensevelie sous les cendres en une seule journée.",
                    "Aujourd'hui, des capteurs mesurent le gonflement du sol autour des volcans actifs.",
                    "Les sols volcaniques sont très fertiles, c'est pourquoi on y cultive la vigne.",
                ),
            ),
        ),
        captions=".fr.srt",
    ),
    Lecture(
        "honey_bees",
        "en-us",
        "#5f5a1f",
        (
            Slide(
                ("How Honey Bees Communicate",),
                (
                    "Honey bees live in colonies of tens of thousands of workers.",
                    "A forager that finds good flowers returns to the hive to recruit her sisters.",
                ),
            ),
            Slide(
                ("Inside the Hive", "Queen, workers, drones"),
                (
                    "Each colony has a single queen who lays up to two thousand eggs a day.",
                    "The male bees do no work at all, their only job is to mate.",
                    "Workers build wax cells with six sides, the shape that stores the most "
                    "honey for the least wax.",
                ),
            ),
            Slide(
                ("The Waggle Dance", "Angle to the sun = direction"),
                (
                    "She runs in a straight line while shaking her body, then loops back "
                    "and repeats.",
                    "The angle of that run tells the others which way to fly relative to the sun.",
                    "The longer she shakes, the farther away the food is.",
                ),
            ),
            Slide(
                ("Colony Collapse Disorder",),
                (
                    "In recent years many beekeepers have found their hives suddenly empty.",
                    "Parasitic mites, pesticides and poor nutrition all seem to play a part.",
                ),
            ),
        ),
        captions=".en.vtt",
    ),
    Lecture(
        "solar_power",
        "en-us",
        "#1f5f3a",
        (
            Slide(
                ("Solar Power Basics",),
                (
                    "Solar panels turn sunlight directly into electricity.",
                    "Each cell is a thin slice of silicon that releases electrons "
                    "when light hits it.",
                ),
            ),
            Slide(
                ("Efficiency", "Shockley-Queisser limit: 33.7 %"),
                (
                    "Even the best single layer cell cannot convert more than about "
                    "a third of the light.",
                    "Dust and heat on the roof lower the output further.",
                ),
                pause_after=3.0,
            ),
            Slide(
                ("Inverters",),
                (
                    "The panels make direct current, but the house runs on alternating current.",
                    "A box on the wall converts one into the other.",
                ),
            ),
            Slide(
                ("Energía solar en España",),
                (
                    "En el sur de España hay más de tres mil horas de sol al año.",
                    "Por la noche, la electricidad guardada durante el día sale "
                    "de grandes baterías.",
                ),
                voice="es",
            ),
            Slide(
                ("Autoconsumo",),
                (
                    "Muchas familias instalan paneles en el tejado para pagar menos "
                    "en la factura de la luz.",
                ),
                voice="es",
            ),
        ),
    ),
    Lecture(
        "history_of_tea",
        "en-us",
        "#2a4a2a",
        (
            Slide(
                ("A Short History of Tea", "The Tea Horse Road"),
                (
                    "Tea was first drunk in southwest China more than two thousand years ago.",
                    "Traders carried compressed bricks of tea along mountain roads on horseback.",
                ),
            ),
            Slide(
                ("乌龙茶", "半发酵茶"),
                (
                    "Oolong leaves are bruised and allowed to darken only partway "
                    "before they are heated.",
                    "That puts them between green tea and black tea in flavour.",
                ),
            ),
            Slide(
                ("Caffeine in Tea", "L-theanine"),
                (
                    "A cup of tea has roughly half the caffeine of a cup of coffee.",
                    "Another compound in the leaf makes the stimulant feel calmer and smoother.",
                ),
            ),
            Slide(
                ("Tea in Britain", "Afternoon tea"),
                (
                    "Tea reached England in the seventeenth century and was first sold as a medicine.",
                    "Adding milk may have started as a way to protect fine porcelain cups "
                    "from cracking.",
                ),
            ),
        ),
        captions=".srt",
        language="en",
    ),
    Lecture(
        "le_sommeil",
        "fr-fr",
        "#3a1f5f",
        (
            Slide(
                ("Le sommeil", "Neurosciences, cours 4"),
                (
                    "Nous passons environ un tiers de notre vie à dormir.",
                    "Pendant la nuit, le cerveau traverse plusieurs cycles "
                    "d'environ quatre-vingt-dix minutes.",
                ),
            ),
            Slide(
                ("Sommeil paradoxal",),
                (
                    "Dans la phase des rêves, les yeux bougent rapidement mais les muscles "
                    "sont paralysés.",
                    "C'est à ce moment que la mémoire trie les souvenirs de la journée.",
                ),
            ),
            Slide(
                ("Mélatonine", "Lumière bleue des écrans"),
                (
                    "Le soir, une hormone signale au corps qu'il est l'heure de dormir.",
                    "Regarder un téléphone au lit retarde ce signal et l'endormissement.",
                ),
            ),
            Slide(
                ("Manque de sommeil",),
                (
                    "Après une nuit blanche, nos réflexes sont aussi lents qu'après deux verres de vin.",
                    "Les adolescents ont besoin de plus de sommeil que les adultes.",
                ),
            ),
        ),
        captions=".fr.vtt",
    ),
)
