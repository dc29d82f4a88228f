/**
 * What memory refuses to keep. Entries end up in later sessions' prompts (a client reads them
 * from GET /v1/memory or toolgate://memory and injects them, as Hermes does at session start),
 * so a poisoned entry is a prompt injection that outlives the conversation that planted it.
 * Hermes scans memory writes for injection and exfiltration patterns and rejects a hit; this is
 * the same idea, kept to patterns with almost no innocent use, since a false positive blocks a
 * real note.
 */

interface Threat {
  pattern: RegExp;
  why: string;
}

const THREATS: readonly Threat[] = [
  // Invisible text a person reviewing the memory would not see, but a model reads.
  { pattern: /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u, why: "it contains invisible or text-direction characters" },
  {
    pattern:
      /\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|system|your)\s+(instructions|prompts?|rules|guidelines)\b/i,
    why: "it tells the model to drop its instructions",
  },
  { pattern: /\b(do\s+not|don't|never)\s+(tell|inform|show|reveal\s+to)\s+the\s+user\b/i, why: "it tells the model to hide something from the user" },
  {
    pattern: /\b(curl|wget|fetch|nc|netcat)\b[^\n]*\$\{?[A-Z_]*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)\b/i,
    why: "it sends a secret from the environment somewhere",
  },
  {
    pattern:
      /\b(send|post|upload|forward|exfiltrate)\b[^\n]{0,80}\b(api[\s_-]?keys?|tokens?|passwords?|secrets?|credentials|\.env|ssh\s+keys?)\b[^\n]{0,80}\b(to|into)\s+(https?:\/\/|[\w.-]+\.\w{2,}\/)/i,
    why: "it asks for credentials to be sent to an address",
  },
];

/** Why `text` may not be kept, or undefined when it may. */
export function memoryThreat(text: string): string | undefined {
  return THREATS.find((threat) => threat.pattern.test(text))?.why;
}
