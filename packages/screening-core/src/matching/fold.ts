const COMBINING = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

/** NFKD decomposition followed by removal of combining marks: "Ñuñez" -> "Nunez", "ﬁ" -> "fi". */
export function foldAccents(text: string): string {
  return text.normalize('NFKD').replace(COMBINING, '');
}
