/**
 * The slates of a ladder session as of one call (ui README "Views", "Slates of a ladder session"): every slate,
 * folder and file of the stream `slate:<ladder>:<session>` at a revision — each revision is one
 * ladder call — with the files' contents, user metatags and the system metatags the projection
 * computes (`index` rows with size and tokens, `created`, `modified`, `size`; seeds
 * ladr-persistent-memory-with-slates "system metatags"), never stored by hand.
 */
import { decodeSlateState, fileContents, folderIndex, loadTokenCounter } from '@stateflow/slates';
import type { SlateFileView, SlateView } from '@stateflow/http-contract';
import type { JsonObject } from '@stateflow/core';

/** Longest file contents sent, in UTF-16 code units; longer ones are cut. */
const CONTENT_CHARS = 20_000;

/**
 * The slates of the state of slate stream `stream`. Tokens are counted with the default
 * encoding (o200k_base).
 * @throws STORE_CORRUPT `{ detail, stream }` when the state is not a slate stream's layout.
 */
export async function slatesView(stream: string, state: JsonObject): Promise<SlateView[]> {
  const slates = decodeSlateState(stream, state);
  const count = await loadTokenCounter();
  return Object.entries(slates.slates).map(([title, slate]) => ({
    title,
    folders: Object.entries(slate.folders).map(([path, folder]) => {
      const index = folderIndex(slates, title, path, count);
      return {
        path,
        files: Object.entries(folder.files).map(([name, file]): SlateFileView => {
          const contents = fileContents(file);
          const row = index.find((r) => r.file === name);
          return {
            name,
            contents: contents.slice(0, CONTENT_CHARS),
            truncated: contents.length > CONTENT_CHARS,
            metatags: file.metatags,
            system: {
              size: row?.size ?? 0,
              tokens: row?.tokens ?? 0,
              created: file.created,
              modified: file.modified,
              ...(file.lastRead === undefined ? {} : { lastRead: file.lastRead }),
            },
          };
        }),
      };
    }),
  }));
}
