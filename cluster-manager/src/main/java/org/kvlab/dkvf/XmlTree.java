package org.kvlab.dkvf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * A small element tree with line numbers, read with the JDK's SAX parser hardened against XXE: DOCTYPE declarations are
 * refused outright, external entities and DTDs are never loaded.
 */
final class XmlTree {
  /** One element: name, attributes, trimmed text, children, and the line of its start tag. */
  record Node(String name, Map<String, String> attrs, StringBuilder text, List<Node> children, int line) {
    String textValue() {
      return text.toString().trim();
    }

    List<Node> all(String child) {
      return children.stream().filter(c -> c.name.equals(child)).toList();
    }

    Node first(String child) {
      return children.stream().filter(c -> c.name.equals(child)).findFirst().orElse(null);
    }
  }

  private XmlTree() {}

  static SAXParserFactory hardenedFactory() throws ParserConfigurationException, SAXException {
    SAXParserFactory f = SAXParserFactory.newInstance();
    f.setNamespaceAware(false);
    f.setValidating(false);
    f.setXIncludeAware(false);
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    f.setFeature("http://xml.org/sax/features/external-general-entities", false);
    f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    return f;
  }

  static Node parse(Path file) throws DkvfImportException {
    Deque<Node> stack = new ArrayDeque<>();
    Node[] root = new Node[1];
    DefaultHandler h = new DefaultHandler() {
      private Locator locator;

      @Override
      public void setDocumentLocator(Locator l) {
        locator = l;
      }

      @Override
      public void startElement(String uri, String local, String qName, Attributes a) {
        Map<String, String> attrs = new LinkedHashMap<>();
        for (int i = 0; i < a.getLength(); i++) {
          attrs.put(a.getQName(i), a.getValue(i));
        }
        Node n = new Node(qName, attrs, new StringBuilder(), new ArrayList<>(), locator == null ? 0 : locator.getLineNumber());
        if (stack.isEmpty()) {
          root[0] = n;
        } else {
          stack.peek().children().add(n);
        }
        stack.push(n);
      }

      @Override
      public void endElement(String uri, String local, String qName) {
        stack.pop();
      }

      @Override
      public void characters(char[] ch, int start, int length) {
        if (!stack.isEmpty()) {
          stack.peek().text().append(ch, start, length);
        }
      }
    };
    try (InputStream in = Files.newInputStream(file)) {
      hardenedFactory().newSAXParser().parse(in, h, file.toUri().toString());
    } catch (SAXParseException e) {
      String msg = e.getMessage() == null ? "malformed XML" : e.getMessage();
      String fix = msg.contains("DOCTYPE")
          ? "remove the <!DOCTYPE ...> declaration (DKVF's descriptors have none; entities and DTDs are refused for safety)"
          : "correct the XML at that place (an unclosed or misspelt tag, a stray '<' or '&', or an unquoted attribute)";
      throw new DkvfImportException(file, e.getLineNumber(), msg, fix);
    } catch (SAXException | ParserConfigurationException e) {
      throw new DkvfImportException(file, 0, "cannot parse the XML: " + e.getMessage(), "check that it is a DKVF descriptor");
    } catch (IOException e) {
      throw new DkvfImportException(file, 0, "cannot read the file: " + e.getMessage(), "check the path and permissions");
    }
    return root[0];
  }
}
