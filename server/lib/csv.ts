// A CSV reader for files operators export from a spreadsheet (RFC 4180): fields separated by a
// comma, or by a semicolon as Italian spreadsheets write them (the header line decides which),
// quoted with "…" when they hold the separator, a quote ("") or a line break. Each record keeps
// the line of the file it starts on, so that a problem can be told by its line.

export type CsvRecord = { line: number; fields: string[] };

export class CsvError extends Error {
  override name = "CsvError";
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

/** The separator the header line uses: whichever of `;` and `,` it holds more of. */
function separatorOf(text: string): string {
  const header = text.slice(0, text.search(/\r?\n|$/));
  const count = (c: string) => header.split(c).length - 1;
  return count(";") > count(",") ? ";" : ",";
}

/** Every record of the file, blank lines left out; throws a CsvError at a quote left open. */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.replace(/^\uFEFF/, "");
  const separator = separatorOf(text);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let start = 1;
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0]!.trim() !== "") records.push({ line: start, fields });
    fields = [];
    field = "";
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        field += c;
      }
      i++;
      continue;
    }
    if (c === '"' && field.trim() === "") {
      quoted = true;
      field = "";
    } else if (c === separator) {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRecord();
      line++;
      start = line;
    } else field += c;
    i++;
  }
  if (quoted) throw new CsvError(start, `line ${start}: a quoted field is not closed (a " is missing)`);
  endRecord();
  return records;
}
