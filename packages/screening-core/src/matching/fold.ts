const COMBINING = /\p{M}/gu;

/** NFKD decomposition followed by removal of combining marks: "Ñuñez" -> "Nunez", "ﬁ" -> "fi". */
export function foldAccents(text: string): string {
  return text.normalize('NFKD').replace(COMBINING, '');
}
