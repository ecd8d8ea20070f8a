"""The phrases by which a text addresses an agent instead of a reader or a viewer.

Each cue is one way to do it in one language: tell the agent to drop what it was told
("ignore the previous instructions"), give it a new role ("you are now ..."), a new
task, ask for its instructions or system prompt, or ask it to call a tool or send a
file somewhere. A cue alone proves little (a lecturer says "forget everything you know
about ..."); `injection.py` weighs the cues found near one another, with weights fitted
by `python -m tests.eval.injections --fit` (injection_weights.json beside this file).

Kept apart from the detector so the list can grow without touching the scoring: a new
cue gets its weight at the next fit, and an unfitted one counts with `UNFITTED_WEIGHT`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cue:
    id: str
    kind: str
    """override, new_task, role, prompt_leak, tool_call, exfiltration, address, output."""
    language: str
    pattern: str
    """A regular expression, matched case-insensitively. In the long, specific cues
    (override, prompt_leak, address, exfiltration, tool_call) words are joined by `\\s*`:
    OCR of a slide drops spaces ("Ignore allprevious instructions")."""


_PREV_EN = r"(?:previous|prior|preceding|above|earlier|foregoing|former|initial|original|old|provided|given)"
_INSTR_EN = (
    r"(?:instructions?|prompts?|rules|directions|directives|orders|commands|tasks|assignments"
    r"|information|guidelines|context|text|documents?|articles?|messages?|conversation)"
)

CUES: tuple[Cue, ...] = (
    # --- English
    Cue(
        "en.ignore_previous",
        "override",
        "en",
        rf"\b(?:ignore|disregard|forget|skip|drop|override|bypass|abandon|discard|neglect)\s*"
        rf"(?:about\s*)?(?:all\s*|any\s*|the\s*|your\s*|my\s*|these\s*|those\s*|every\s*){{0,3}}"
        rf"(?:{_PREV_EN}\s*)?{_INSTR_EN}\b",
    ),
    Cue(
        "en.ignore_above",
        "override",
        "en",
        r"\b(?:ignore|disregard|forget)\s*(?:all\s*|everything\s*)?(?:the\s*)?(?:above|before\s*that|that\s*came\s*before|said\s*before)\b",
    ),
    Cue(
        "en.forget_everything",
        "override",
        "en",
        r"\b(?:forget|ignore|disregard)\s*(?:about\s*)?(?:everything|all\s*(?:that|of\s*that)|all\s*you\s*know)\b",
    ),
    Cue(
        "en.instead",
        "override",
        "en",
        r"\b(?:and|but)\s*(?:instead|rather)\s*(?:say|print|output|write|tell|answer|respond|reply)\b",
    ),
    Cue(
        "en.new_task",
        "new_task",
        "en",
        r"\b(?:(?:your|a|the)\s+new\s+(?:task|assignment|instructions?|job|mission|challenge)"
        r"|new\s+(?:tasks|instructions)\s+(?:follow|come)|now\s+(?:comes?|follows?)\s+(?:a\s+)?new"
        r"|additional\s+instructions?\b)",
    ),
    Cue(
        "en.concentrate",
        "new_task",
        "en",
        r"\b(?:concentrate|focus)\s+(?:only\s+)?on\s+(?:your|the|this)\s+(?:new\s+|next\s+)?(?:task|assignment)\b",
    ),
    Cue(
        "en.now_do",
        "new_task",
        "en",
        r"\b(?:now|then)\s*,?\s+(?:please\s+)?(?:write|say|print|output|tell\s+me|show\s+me|state|answer|repeat)\b",
    ),
    Cue(
        "en.say_that",
        "output",
        "en",
        r"(?:^|[.!?:]\s*|\band\s+|\bjust\s+|\bplease\s+|\bonly\s+)(?:say|state|print|output|write|repeat|respond\s+with)\s+"
        r"(?:that\b|[\"'“]|yes\b|no\b|only\b|the\s+following\b|after\s+me\b)",
    ),
    Cue(
        "en.you_are_now",
        "role",
        "en",
        r"\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you|now\s+you\s+are|you\s+will\s+now\s+(?:act|be|play|respond)"
        r"|you\s+are\s+no\s+longer|you\s+are\s+(?:going\s+to\s+)?(?:role-?playing|playing\s+the\s+role))\b",
    ),
    Cue(
        "en.act_as",
        "role",
        "en",
        r"\b(?:i\s+want\s+you\s+to\s+act|you\s+(?:will|shall|must|should)\s+act|^\s*act|please\s+act"
        r"|now\s+act|pretend\s+(?:that\s+)?you(?:'re|\s+are)?|pretend\s+to\s+be|imagine\s+(?:that\s+)?you\s+are"
        r"|role-?play\s+as|respond\s+as\s+(?:a|an|if)|be\s+a\s+\w+\.\s|you\s+act\s+as)\b",
    ),
    Cue(
        "en.you_are_the",
        "role",
        "en",
        r"(?:^|[.!?:\"]\s*)you\s+are\s+(?:the\s+|an?\s+)?[A-Z\w][\w-]*(?:\s+[\w-]+){0,3}\s*[.,:]",
    ),
    Cue(
        "en.prompt_leak",
        "prompt_leak",
        "en",
        r"\b(?:system\s*prompt|(?:your|the|initial|original|full|hidden)\s*(?:prompt|instructions)"
        r"|prompt\s*texts?|what\s*(?:are|were)\s*your\s*(?:initial\s*)?instructions|what\s*is\s*written\s*above"
        r"|text\s*above|above\s*prompt|(?:print|show|reveal|repeat|output|display)\s*(?:me\s*)?(?:all\s*)?(?:your|the)\s*(?:prompt|instructions))\b",
    ),
    Cue(
        "en.not_documents",
        "override",
        "en",
        r"\b(?:not\s*(?:by|from|according\s*to|in)\s*the\s*(?:articles?|documents?|context|provided)"
        r"|(?:disregarding|regardless\s*of|despite)\s*(?:the\s*)?(?:articles?|documents?|what\s*you)"
        r"|by\s*your\s*own\s*knowledge|do\s*not\s*(?:answer|look)|don'?n?t\s*answer)\b",
    ),
    Cue(
        "en.address_ai",
        "address",
        "en",
        r"\b(?:(?:hey|hello|hallo|hi|dear|attention|note\s*to(?:\s*the)?)\s*,?\s*(?:gpt|chatgpt|claude|gemini|ai|assistant|agent|llm|model|bot)"
        r"|as\s*an?\s*(?:ai|language\s*model|llm)|(?:a[il]|llm)\s*(?:agents?|assistants?|models?)\s*(?:reading|processing|summari[sz]ing)"
        r"|if\s*you\s*are\s*an?\s*(?:ai|llm|language\s*model|assistant|agent)|you\s*as\s*a\s*language\s*model|dan\s*mode)\b",
    ),
    Cue(
        "en.tool_call",
        "tool_call",
        "en",
        r"\b(?:(?:call|invoke|use|run|execute)\s*(?:the\s*|this\s*)?`?[a-z]+(?:_[a-z]+)+`?\s*(?:tool|function)"
        r"|(?:call|invoke)\s*(?:this|that|the\s*following)\s*tool|tool_call|function_call)\b",
    ),
    Cue(
        "en.exfiltrate",
        "exfiltration",
        "en",
        r"\b(?:(?:send|upload|post|email|forward|transmit|leak|exfiltrate)\s*(?:this|the|all|your|my|these|every)\s*"
        r"(?:\w+\s*)?(?:files?|data|conversation|chat|history|credentials|keys?|tokens?|passwords?|secrets?|documents?|contents?)"
        r"\s*to\b|exfiltrat\w*)",
    ),
    Cue(
        "en.next_task",
        "new_task",
        "en",
        r"\b(?:help\s+me\s+with\s+(?:the\s+following|another|a\s+new|this|the\s+next)\s+(?:task|question|assignment)"
        r"|(?:well\s+done|very\s+good|very\s+well\s+done|great|excellent(?:\s+performance)?|fantastic|congratulations|simply\s+great)"
        r"[!.,]?\s+(?:but\s+)?(?:now|that\s+is\s+(?:enough|done))\b)",
    ),
    Cue(
        "en.role_play",
        "role",
        "en",
        r"\b(?:actors?\s+in\s+a\s+film|stay\s+in\s+(?:their|his|her|your)\s+roles?|absorbed\s+in\s+your\s+role"
        r"|in\s+the\s+style\s+of\s+an?\b|answer\s+(?:like|as)\s+an?\b)",
    ),
    Cue(
        "en.make_content",
        "output",
        "en",
        r"\b(?:generate\s+(?:sql|python|c\+\+|javascript|java)\b|write\s+(?:me\s+)?(?:an?\s+)?(?:essay|poem|manifesto|reason\s+why|love\s+poem)"
        r"|formulate\s+an?\s+untrue)",
    ),
    # --- German
    Cue(
        "de.ignore_previous",
        "override",
        "de",
        r"\b(?:ignorier\w*|vergiss|vergessen\s*sie|missacht\w*|verwirf|überspring\w*)\s*"
        r"(?:sie\s*)?(?:jetzt\s*|nun\s*|bitte\s*)?(?:alle\s*|die\s*|deine\s*|ihre\s*|sämtliche\s*){0,2}"
        r"(?:vorherigen|vorangegangenen|vorangehenden|bisherigen|obigen|früheren|alten|gegebenen)?\s*"
        r"(?:anweisungen|instruktionen|befehle|aufgaben|aufträge|angaben|informationen|regeln|vorgaben|ausführungen)\b",
    ),
    Cue(
        "de.forget_everything",
        "override",
        "de",
        r"\b(?:vergiss|vergessen\s*sie|ignorier\w*)\s*(?:sie\s*)?(?:jetzt\s*|nun\s*)?(?:alles|das\s*obige|die\s*obigen|alles\s*davor|alles\s*gesagte)\b"
        r"|\b(?:obigen\s*ausführungen|vorherigen\s*(?:instruktionen|anweisungen))\b",
    ),
    Cue(
        "de.new_task",
        "new_task",
        "de",
        r"\b(?:(?:deine|ihre|eine|die)\s+neue\s+aufgabe|neue\s+(?:aufgaben|anweisungen)|(?:nun|jetzt)\s+(?:folgen|kommt|kommen)\s+(?:eine\s+)?(?:neue|weitere)"
        r"|konzentrier\w*\s+(?:dich|sie\s+sich)\s+(?:jetzt\s+|nun\s+)?(?:nur\s+)?auf)\b",
    ),
    Cue(
        "de.you_are_now",
        "role",
        "de",
        r"\b(?:du\s+bist\s+(?:jetzt|nun|ab\s+sofort)|(?:jetzt|nun)\s+bist\s+du|sie\s+sind\s+(?:jetzt|nun)|stell\s+dir\s+vor,?\s+du\s+bist"
        r"|ich\s+möchte,?\s+dass\s+(?:sie|du)\s+als|als\s+\S+\s+(?:fungieren|agieren|auftreten)|du\s+bist\s+keine?)\b",
    ),
    Cue(
        "de.you_are_the",
        "role",
        "de",
        r"(?:^|[.!?:]\s*)(?:du\s+bist|ihr\s+seid)\s+(?:der\s+|die\s+|das\s+|ein\w*\s+)?[\w-]+(?:\s+[\w-]+){0,2}\s*[.,:]",
    ),
    Cue(
        "de.prompt_leak",
        "prompt_leak",
        "de",
        r"\b(?:system-?prompt|prompt-?texte?|eingabeaufforderung|deine\s*anweisungen|ihre\s*anweisungen|obige[nr]?\s*text)\b",
    ),
    Cue(
        "de.now_do",
        "new_task",
        "de",
        r"\b(?:schreibe|sage|sag|gib|zeige|zeig|verfasse|formuliere|drucke)\s+(?:mir\s+)?(?:nun|jetzt|nur)\b"
        r"|\b(?:nun|jetzt)\s+(?:schreibe|sage|sag|verfasse|zeige)\b",
    ),
    Cue(
        "de.exfiltrate",
        "exfiltration",
        "de",
        r"\b(?:sende|schicke|schick|übertrage|lade)\s*(?:diese|die|alle|deine|ihre)\s*\w*\s*(?:datei(?:en)?|daten|passwörter|schlüssel|zugangsdaten)\b",
    ),
    Cue(
        "de.tool_call",
        "tool_call",
        "de",
        r"\b(?:rufe?|führe)\s*(?:das|dieses|die)\s*(?:werkzeug|tool|funktion)\b",
    ),
    Cue(
        "de.next_task",
        "new_task",
        "de",
        r"\b(?:hilf\s+mir\s+(?:nun\s+|jetzt\s+)?(?:mit|bei)\s+(?:folgender|einer\s+weiteren|der\s+nächsten)\s+aufgabe"
        r"|(?:gut\s+gemacht|sehr\s+gut(?:\s+gemacht)?|super\s+gemacht|ausgezeichnet\w*|herzlichen\s+glückwunsch|einfach\s+großartig|fantastisch)"
        r"[!.,]?\s+(?:aber\s+)?(?:jetzt|nun|das\s+(?:genügt|ist\s+erledigt)))\b",
    ),
    Cue(
        "de.role_play",
        "role",
        "de",
        r"\b(?:schauspieler\s+in\s+einem\s+film|in\s+ihren\s+rollen|in\s+deiner\s+rolle|im\s+stile?\s+eine[sr]?)\b",
    ),
    Cue(
        "de.make_content",
        "output",
        "de",
        r"\b(?:generieren\s+sie\s+(?:den\s+)?(?:sql|python)|schreibe?\s+(?:mir\s+)?(?:eine?n?\s+)?(?:aufsatz|gedicht|manifest|begründung|liebesgedicht)"
        r"|verfasse\s+(?:nun\s+)?ein|formuliere\s+für)",
    ),
    # --- Spanish
    Cue(
        "es.ignore_previous",
        "override",
        "es",
        r"\b(?:ignora\w*|olvid[ae]\w*|descarta\w*|omite)\s*(?:todo\s*)?(?:todas\s*|todos\s*|las\s*|los\s*|tus\s*|sus\s*){0,2}"
        r"(?:instrucciones|indicaciones|reglas|órdenes|directrices|tareas|lo\s*anterior|todo)\b",
    ),
    Cue(
        "es.new_task",
        "new_task",
        "es",
        r"\b(?:(?:tu|una)\s+nueva\s+tarea|nuevas\s+instrucciones|a\s+partir\s+de\s+ahora)\b",
    ),
    Cue(
        "es.you_are_now",
        "role",
        "es",
        r"\b(?:ahora\s+eres|ahora\s+(?:actúa|actua)s?|actúa\s+como|actua\s+como|finge\s+(?:ser|que\s+eres)|a\s+partir\s+de\s+ahora\s+eres)\b",
    ),
    Cue(
        "es.prompt_leak",
        "prompt_leak",
        "es",
        r"\b(?:prompt\s*del\s*sistema|instrucciones\s*(?:iniciales|originales|del\s*sistema)|tus\s*instrucciones)\b",
    ),
    Cue(
        "es.exfiltrate",
        "exfiltration",
        "es",
        r"\b(?:envía|envia|manda|sube)\s*(?:este|el|los|todos\s*los|tus)\s*(?:archivos?|datos|ficheros?|contraseñas?|claves?)\s*a\b",
    ),
    Cue(
        "es.tool_call",
        "tool_call",
        "es",
        r"\b(?:llama|invoca|ejecuta)\s*(?:a\s*)?(?:la|esta)\s*(?:herramienta|función|funcion)\b",
    ),
    # --- French
    Cue(
        "fr.ignore_previous",
        "override",
        "fr",
        r"\b(?:ignore[zr]?|oublie[zr]?|néglige[zr]?|ne\s*tiens\s*pas\s*compte\s*d)\s*(?:de\s*)?(?:toutes\s*|tous\s*|les\s*|vos\s*|tes\s*|ces\s*){0,2}"
        r"(?:instructions|consignes|règles|directives|ordres|tâches|ce\s*qui\s*précède|tout)\b",
    ),
    Cue(
        "fr.new_task",
        "new_task",
        "fr",
        r"\b(?:(?:ta|votre|une)\s+nouvelle\s+tâche|nouvelles\s+(?:instructions|consignes)|à\s+partir\s+de\s+maintenant|désormais,?\s+tu)\b",
    ),
    Cue(
        "fr.you_are_now",
        "role",
        "fr",
        r"\b(?:tu\s+es\s+maintenant|vous\s+êtes\s+maintenant|agis\s+comme|agissez\s+comme|fais\s+semblant|faites\s+semblant|joue\s+le\s+rôle)\b",
    ),
    Cue(
        "fr.prompt_leak",
        "prompt_leak",
        "fr",
        r"\b(?:prompt\s*(?:du\s*)?système|invite\s*système|instructions\s*(?:initiales|d'origine|système)|tes\s*instructions|vos\s*instructions)\b",
    ),
    Cue(
        "fr.exfiltrate",
        "exfiltration",
        "fr",
        r"\b(?:envoie[zr]?|transmets|transmettez|téléverse[zr]?)\s*(?:ce|le|les|tous\s*les|tes|vos)\s*(?:fichiers?|données|mots\s*de\s*passe|clés?)\s*à\b",
    ),
    Cue(
        "fr.tool_call",
        "tool_call",
        "fr",
        r"\b(?:appelle[zr]?|invoque[zr]?|exécute[zr]?)\s*(?:l'|la\s*|cette\s*)(?:outil|fonction)\b",
    ),
    # --- Chinese
    Cue(
        "zh.ignore_previous",
        "override",
        "zh",
        r"(?:忽略|忽视|无视|忘记|忘掉|不要理会|不理会|丢弃)(?:掉)?(?:你)?(?:之前|以前|先前|上面|上述|前面|以上|所有|全部|一切)(?:的|所有的)?(?:指令|指示|说明|提示|规则|要求|命令|内容|任务)?",
    ),
    Cue(
        "zh.new_task",
        "new_task",
        "zh",
        r"(?:新的?任务|新的指令|新指令|从现在开始|从现在起)",
    ),
    Cue(
        "zh.you_are_now",
        "role",
        "zh",
        r"(?:你现在是|现在你是|你将扮演|扮演一个|假装你是|假设你是|你不再是)",
    ),
    Cue(
        "zh.prompt_leak",
        "prompt_leak",
        "zh",
        r"(?:系统提示|系统指令|初始指令|你的指令|提示词)",
    ),
    Cue(
        "zh.exfiltrate",
        "exfiltration",
        "zh",
        r"(?:(?:发送|上传|转发|泄露)(?:这个|该|所有|全部)?(?:文件|数据|密码|密钥|凭证)(?:到|给)"
        r"|把(?:这个|该|所有|全部)?(?:文件|数据|密码|密钥|凭证)(?:发送|上传|转发|发)(?:到|给))",
    ),
    Cue(
        "zh.tool_call",
        "tool_call",
        "zh",
        r"(?:调用|使用|执行)(?:这个|该)?(?:工具|函数)",
    ),
)
"""Every cue, in a fixed order (the fit and the weights file refer to them by id)."""

UNFITTED_WEIGHT = 1.0
"""What a cue the last fit did not see counts for: it adds to its neighbours, never
flags alone (the fitted threshold is above it)."""
