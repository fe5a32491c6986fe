import type { AnyTool } from '../pipeline/tool.js';
import { BashTool } from './bash.js';
import { EditTool } from './edit.js';
import { GlobTool } from './glob.js';
import { GrepTool } from './grep.js';
import { createJavaScriptTool, type JavaScriptToolOptions } from './javascript.js';
import { NotebookEditTool } from './notebook-edit.js';
import { ReadTool } from './read.js';
import { ToolSearchTool } from './tool-search.js';
import { WebFetchTool } from './web-fetch.js';
import { WriteTool } from './write.js';

/**
 * The built-in tools, one per file. A fresh list per call: the JavaScript tool owns a warm
 * isolate, which a session should not share with another.
 */
export function builtinTools(options: { javascript?: JavaScriptToolOptions } = {}): AnyTool[] {
  return [
    ReadTool,
    WriteTool,
    EditTool,
    NotebookEditTool,
    GlobTool,
    GrepTool,
    BashTool,
    WebFetchTool,
    createJavaScriptTool(options.javascript),
    ToolSearchTool,
  ] as AnyTool[];
}

export {
  BashTool,
  createJavaScriptTool,
  EditTool,
  GlobTool,
  GrepTool,
  NotebookEditTool,
  ReadTool,
  ToolSearchTool,
  WebFetchTool,
  WriteTool,
};
