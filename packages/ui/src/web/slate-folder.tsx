/** One folder of a slate as a table: each file with its contents, user metatags and system metatags (size, tokens, created, modified, last read). */
import { timeText } from './format.js';
import type { SlateFileView, SlateView } from './types.js';

export function SlateFolder(props: { folder: SlateView['folders'][number] }) {
  return (
    <div class="folder">
      <h4>folder {props.folder.path}</h4>
      <table>
        <thead>
          <tr>
            <th scope="col">file</th>
            <th scope="col">contents</th>
            <th scope="col">metatags</th>
            <th scope="col">system metatags</th>
          </tr>
        </thead>
        <tbody>
          {props.folder.files.map((file) => (
            <SlateFileRow key={file.name} file={file} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SlateFileRow(props: { file: SlateFileView }) {
  const file = props.file;
  return (
    <tr>
      <th scope="row">{file.name}</th>
      <td>
        <pre class="contents">{file.contents === '' ? '(empty)' : file.contents}{file.truncated ? '…' : ''}</pre>
      </td>
      <td>{Object.keys(file.metatags).length === 0 ? <span class="muted">none</span> : <code>{JSON.stringify(file.metatags)}</code>}</td>
      <td class="small">
        size {file.system.size} B · {file.system.tokens} tokens
        <br />
        created {timeText(file.system.created)}
        <br />
        modified {timeText(file.system.modified)}
        {file.system.lastRead !== undefined && (
          <>
            <br />
            last read {timeText(file.system.lastRead)}
          </>
        )}
      </td>
    </tr>
  );
}
