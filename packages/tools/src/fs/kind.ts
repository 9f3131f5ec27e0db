import { extname } from 'node:path'

// What kind of file a read is about to show: text, an image the model can look at, or binary it
// cannot (seed 003 §3.3 "capability boundary": say so instead of dumping bytes).

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

const IMAGE_EXTENSIONS = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
} satisfies Record<string, ImageType>

/** The image type by magic bytes (the extension only selects the check; content decides). */
export function sniffImage(path: string, head: Uint8Array): ImageType | undefined {
  const declared = (IMAGE_EXTENSIONS as Record<string, ImageType | undefined>)[extname(path).toLowerCase()]
  if (declared === undefined) return undefined
  const b = head
  const png = b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47
  const jpeg = b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff
  const gif = b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38
  const webp =
    b[0] === 0x52 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x46 &&
    b[8] === 0x57 &&
    b[9] === 0x45 &&
    b[10] === 0x42 &&
    b[11] === 0x50
  if (png) return 'image/png'
  if (jpeg) return 'image/jpeg'
  if (gif) return 'image/gif'
  if (webp) return 'image/webp'
  return undefined
}

/** Binary when the first bytes hold a NUL (what git and ripgrep use) or mostly non-text bytes. */
export function looksBinary(head: Uint8Array): boolean {
  if (head.length === 0) return false
  let control = 0
  for (const byte of head) {
    if (byte === 0) return true
    // Control characters other than \t \n \v \f \r and ESC (coloured logs are text).
    if (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 11 && byte !== 12 && byte !== 13 && byte !== 27)
      control++
  }
  return control / head.length > 0.1
}

const LANGUAGES: Record<string, string> = {
  '.ts': 'typescript',
  '.tsx': 'tsx',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'jsx',
  '.json': 'json',
  '.md': 'markdown',
  '.py': 'python',
  '.rs': 'rust',
  '.go': 'go',
  '.java': 'java',
  '.c': 'c',
  '.h': 'c',
  '.cpp': 'cpp',
  '.sh': 'bash',
  '.yml': 'yaml',
  '.yaml': 'yaml',
  '.toml': 'toml',
  '.html': 'html',
  '.css': 'css',
  '.sql': 'sql',
}

/** A syntax-highlighting hint for the read card (UI only). */
export function languageOf(path: string): string | undefined {
  return LANGUAGES[extname(path).toLowerCase()]
}
