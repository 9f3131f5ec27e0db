// MCP content blocks -> toolgate content blocks. toolgate carries text and images to the model;
// every other kind becomes a short text line that says what it was, never a silent drop.
import type { ContentBlock } from '@toolgate/core'

type Raw = Record<string, unknown>

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/

export function mapContent(blocks: readonly unknown[]): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const raw of blocks) {
    const block = (typeof raw === 'object' && raw !== null ? raw : {}) as Raw
    const type = typeof block.type === 'string' ? block.type : '(none)'
    switch (type) {
      case 'text':
        out.push({ type: 'text', text: typeof block.text === 'string' ? block.text : '' })
        break
      case 'image': {
        const mime = str(block.mimeType)
        const data = str(block.data)
        if (IMAGE_TYPES.test(mime) && data !== '') out.push({ type: 'image', mediaType: mime, data })
        else
          out.push(
            text(
              `[image ${mime || '(no type)'} not shown: only PNG, JPEG, GIF and WebP images are passed on]`,
            ),
          )
        break
      }
      case 'audio':
        out.push(
          text(
            `[audio ${str(block.mimeType) || '(no type)'}, ${kb(str(block.data).length * 0.75)} not shown: audio is not passed to the model]`,
          ),
        )
        break
      case 'resource_link': {
        const parts = [
          `Resource link: ${str(block.name) || str(block.title) || '(unnamed)'} <${str(block.uri)}>`,
        ]
        if (str(block.mimeType) !== '') parts.push(`(${str(block.mimeType)})`)
        if (str(block.description) !== '') parts.push(`- ${str(block.description)}`)
        out.push(text(parts.join(' ')))
        break
      }
      case 'resource': {
        const r = (typeof block.resource === 'object' && block.resource !== null ? block.resource : {}) as Raw
        const uri = str(r.uri)
        const mime = str(r.mimeType)
        if (typeof r.text === 'string')
          out.push(text(`Resource <${uri}>${mime ? ` (${mime})` : ''}:\n${r.text}`))
        else if (typeof r.blob === 'string' && IMAGE_TYPES.test(mime))
          out.push({ type: 'image', mediaType: mime, data: r.blob })
        else
          out.push(
            text(
              `[resource <${uri}>${mime ? ` (${mime})` : ''}: ${kb(str(r.blob).length * 0.75)} of binary data not shown]`,
            ),
          )
        break
      }
      default:
        out.push(
          text(`[content of type ${JSON.stringify(type).slice(0, 60)} not shown: toolgate does not know it]`),
        )
    }
  }
  return out
}

function text(t: string): ContentBlock {
  return { type: 'text', text: t }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${Math.round(bytes)} bytes` : `${(bytes / 1024).toFixed(1)} KB`
}
